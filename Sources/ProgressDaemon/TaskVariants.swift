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
            Variant.add(
                builder,
                g_variant_new_dict_entry(
                    Variant.string(BusNames.taskInterface), properties(table.all, of: task, texts: texts)))
        }
    }

    /// The a{sv} of `properties` written into `writer`, in serialized form.
    func write(
        _ properties: TaskProperties, of task: ProgressTask, texts: TaskDescribing, into writer: SerializedVariant
    ) {
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

    /// Room left in every reply for its tuple, its header and the few values around the
    /// dictionary (a reply is checked again as a whole before it goes: MethodCall.reply).
    /// The large reads' dictionaries are written by `SlicedReply`, each task's a{sv} by `write`.
    static let replyMargin = 4_096

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
        Variant.tuple([
            Variant.string(spoken.name?.text ?? ""), Variant.string(spoken.sentence(texts)),
            Variant.string(spoken.politeness.rawValue),
        ])
    }
}
