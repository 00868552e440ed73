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

    /// Every task, keyed by `key` (its name for Snapshot, its path for GetManagedObjects).
    func everyTask(
        in store: TaskStore, type: String, key: (TaskName) -> OpaquePointer, value: (ProgressTask) -> OpaquePointer
    ) -> OpaquePointer {
        Variant.container(type) { builder in
            for name in store.sortedNames {
                guard let task = store.task(name) else { continue }
                Variant.add(builder, g_variant_new_dict_entry(key(name), value(task)))
            }
        }
    }

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

    /// The (s name, s text, s politeness) of an Announcement signal.
    static func announcement(
        of task: ProgressTask, _ announcement: AnnouncementPolicy.Announcement, texts: TaskDescribing
    ) -> OpaquePointer {
        Variant.tuple([
            Variant.string(task.name.text), Variant.string(texts.accessibleText(of: task)),
            Variant.string(announcement.politeness.rawValue),
        ])
    }
}
