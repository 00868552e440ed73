import CGLib
import ProgressBus
import ProgressCore

/// Tasks and summaries as the GVariants the Progress1 API sends: the one place that knows
/// the a{sv} shapes of a task, an ObjectManager entry, a Snapshot and an Announcement.
struct TaskVariants {
    /// The properties as an a{sv}, in declaration order, with texts in `texts`' locale.
    func properties(_ properties: TaskProperties, of task: ProgressTask, texts: TaskDescribing) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            for property in properties.members {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, describing: texts)))
            }
        }
    }

    /// ObjectManager's a{sa{sv}}: the task interface with every property.
    func interfaces(of task: ProgressTask, texts: TaskDescribing) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            Variant.add(builder, g_variant_new_dict_entry(Variant.string(BusNames.taskInterface), properties(.all, of: task, texts: texts)))
        }
    }

    /// A run of tasks as a dictionary keyed by `key`, bounded so that it always fits in a
    /// reply: the tasks of `names` in order, stopping before the one that would pass
    /// `maxBytes` (as GVariant counts them; the reply's header has its own margin) or after
    /// `maxCount`. Each entry is measured as it is built, so refusing a read that is too big
    /// costs at most `maxBytes` of memory, never the whole answer.
    struct Page {
        let value: OpaquePointer
        let count: Int
        let bytes: Int
        let last: TaskName?
        /// Whether every task of `names` is in it.
        let complete: Bool
    }

    func page(
        _ names: some Collection<TaskName>, in store: TaskStore, type: String, maxBytes: Int, maxCount: Int = .max,
        key: (TaskName) -> OpaquePointer, value: (ProgressTask) -> OpaquePointer
    ) -> Page {
        let budget = maxBytes - Self.replyMargin
        var count = 0, bytes = 0, last: TaskName?, complete = true
        let container = Variant.container(type) { builder in
            for name in names {
                guard let task = store.task(name) else { continue }
                guard count < maxCount else { complete = false; return }
                let entry = g_variant_ref_sink(g_variant_new_dict_entry(key(name), value(task)))!
                defer { g_variant_unref(entry) }
                let size = Int(g_variant_get_size(entry))
                guard bytes + size <= budget else { complete = false; return }
                Variant.add(builder, entry)
                count += 1
                bytes += size
                last = name
            }
        }
        return Page(value: container, count: count, bytes: bytes, last: last, complete: complete)
    }

    /// Room left in every reply for its tuple, header and the difference between GVariant's
    /// and the wire's framing of the few values around the dictionary.
    static let replyMargin = 4_096

    /// Overall's and Aggregate's a{sv}, with the keys the XML documents.
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
        let (name, text) = switch spoken {
        case .single(let task, _): (task.name.text, texts.accessibleText(of: task))
        case .summary(let summary): ("", texts.summary(summary))
        }
        return Variant.tuple([Variant.string(name), Variant.string(text), Variant.string(spoken.politeness.rawValue)])
    }
}
