import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// Tasks and summaries as the GVariants the Progress1 API sends: the one place that knows
/// the a{sv} shapes of a task, an ObjectManager entry, a Snapshot and an Announcement.
struct TaskVariants {
    /// The store's properties: their names and values come from its table.
    let table: TaskPropertyTable

    /// The properties as an a{sv}, in declaration order, with texts in `texts`' locale:
    /// written as the large replies write it, so a task's a{sv} is built in one place.
    func properties(_ properties: TaskProperties, of task: ProgressTask, texts: TaskDescribing) -> OpaquePointer {
        let writer = SerializedVariant()
        write(properties, of: task, texts: texts, into: writer)
        return writer.make("a{sv}")
    }

    /// ObjectManager's a{sa{sv}}: the task interface with every property.
    func interfaces(of task: ProgressTask, texts: TaskDescribing) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            Variant.add(builder, g_variant_new_dict_entry(Variant.string(BusNames.taskInterface), properties(table.all, of: task, texts: texts)))
        }
    }

    /// The a{sv} of `properties` written into `writer`, in serialized form.
    func write(_ properties: TaskProperties, of task: ProgressTask, texts: TaskDescribing, into writer: SerializedVariant) {
        writer.array(alignment: 8) { element in
            for index in properties.indices {
                element {
                    writer.entry(key: table.descriptors[index].name, valueAlignment: 8) {
                        writer.variant(table.value(at: index, of: task, describing: texts))
                    }
                }
            }
        }
    }

    /// A large read's dictionary, bounded so that it always fits in a reply: the tasks in
    /// order, stopping before the one that would pass `maxBytes` (less `replyMargin`) or
    /// after `maxCount`. Refusing a read that is too big costs at most `maxBytes` of memory.
    struct Page {
        /// Floating; the caller unrefs it when it refuses the read.
        let value: OpaquePointer
        let count: Int
        let last: TaskName?
        /// Whether every task offered is in it.
        let complete: Bool
    }

    /// Room left in every reply for its tuple, its header and the few values around the
    /// dictionary (a reply is checked again as a whole before it goes: MethodCall.reply).
    static let replyMargin = 4_096

    /// Snapshot's, SnapshotPage's and Changes' a{sa{sv}}: each task by name with those
    /// properties, written in serialized form into one buffer (SerializedVariant) rather
    /// than as a tree of GVariants.
    func tasksByName(
        _ tasks: some Sequence<(ProgressTask, TaskProperties)>, texts: TaskDescribing, maxBytes: Int, maxCount: Int = .max,
        expected: Int = 0
    ) -> Page {
        page(of: tasks, type: "a{sa{sv}}", capacity: min(expected * 700, maxBytes), maxBytes: maxBytes,
             maxCount: maxCount) { writer, row in
            writer.entry(key: row.0.name.text, valueAlignment: 8) { write(row.1, of: row.0, texts: texts, into: writer) }
        }
    }

    /// GetManagedObjects' a{oa{sa{sv}}}: every task's path with its interface and
    /// properties, bounded as `tasksByName`.
    func managedObjects(in tasks: TaskView, texts: TaskDescribing, maxBytes: Int) -> Page {
        page(of: tasks.namesInOrder.lazy.compactMap(tasks.task).map { [table] in ($0, table.all) }, type: "a{oa{sa{sv}}}",
             capacity: min(tasks.count * 800, maxBytes), maxBytes: maxBytes) { writer, row in
            writer.entry(key: BusNames.taskPath(row.0.name), valueAlignment: 8) {
                writer.array(alignment: 8) { interface in
                    interface {
                        writer.entry(key: BusNames.taskInterface, valueAlignment: 8) {
                            write(table.all, of: row.0, texts: texts, into: writer)
                        }
                    }
                }
            }
        }
    }

    /// The bounded array both are: one entry a task, in order, until `maxCount` or until the
    /// next entry would pass `maxBytes` (less `replyMargin`).
    private func page(
        of rows: some Sequence<(ProgressTask, TaskProperties)>, type: String, capacity: Int, maxBytes: Int,
        maxCount: Int = .max, entry: @escaping (SerializedVariant, (ProgressTask, TaskProperties)) -> Void
    ) -> Page {
        let writer = SerializedVariant(capacity: capacity)
        var count = 0, last: TaskName?, complete = true
        writer.boundedArray(alignment: 8, maxBytes: maxBytes - Self.replyMargin) { element in
            for row in rows {
                guard count < maxCount, element({ entry(writer, row) }) else {
                    complete = false
                    return
                }
                count += 1
                last = row.0.name
            }
        }
        return Page(value: writer.make(type), count: count, last: last, complete: complete)
    }

    func summary(_ summary: TaskSummary) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            Variant.addEntry(builder, "fraction", g_variant_new_double(summary.fraction))
            Variant.addEntry(builder, "state", Variant.string(summary.state))
            Variant.addEntry(builder, "active", g_variant_new_uint64(guint64(summary.active)))
            Variant.addEntry(builder, "indeterminate", g_variant_new_boolean(summary.indeterminate ? 1 : 0))
            Variant.addEntry(builder, "stalled", g_variant_new_boolean(summary.stalled ? 1 : 0))
        }
    }

    /// The (s name, s text, s politeness) of an Announcement signal: one task's name and
    /// sentence, or "" and a summary of several.
    static func announcement(_ spoken: AnnouncementBudget.Spoken, texts: TaskDescribing) -> OpaquePointer {
        Variant.tuple([Variant.string(spoken.name?.text ?? ""), Variant.string(spoken.sentence(texts)), Variant.string(spoken.politeness.rawValue)])
    }
}
