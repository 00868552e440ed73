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

    /// The a{sv} of `properties` written into `writer`, in serialized form.
    func write(_ properties: TaskProperties, of task: ProgressTask, texts: TaskDescribing, into writer: SerializedVariant) {
        writer.array(alignment: 8) { element in
            for property in properties.members {
                element {
                    writer.entry(key: property.dbusName, valueAlignment: 8) {
                        writer.variant(task.value(of: property, describing: texts))
                    }
                }
            }
        }
    }

    /// Snapshot's and Changes' a{sa{sv}}: each of `tasks` by name with those properties,
    /// built in serialized form (a tree of GVariants would be 26 allocations a task, and as
    /// many to serialize and free).
    func tasksByName(
        _ tasks: [(task: ProgressTask, properties: TaskProperties)], texts: TaskDescribing
    ) -> OpaquePointer {
        let writer = SerializedVariant(capacity: tasks.count * 700)
        writer.array(alignment: 8) { element in
            for (task, properties) in tasks {
                element { writer.entry(key: task.name.text, valueAlignment: 8) { write(properties, of: task, texts: texts, into: writer) } }
            }
        }
        return writer.make("a{sa{sv}}")
    }

    /// GetManagedObjects' a{oa{sa{sv}}}: every task's path with its interface and properties.
    func managedObjects(in store: TaskStore, texts: TaskDescribing) -> OpaquePointer {
        let writer = SerializedVariant(capacity: store.count * 800)
        writer.array(alignment: 8) { element in
            for task in store.sortedNames.compactMap(store.task) {
                element {
                    writer.entry(key: BusNames.taskPath(task.name), valueAlignment: 8) {
                        writer.array(alignment: 8) { interface in
                            interface {
                                writer.entry(key: BusNames.taskInterface, valueAlignment: 8) {
                                    write(.all, of: task, texts: texts, into: writer)
                                }
                            }
                        }
                    }
                }
            }
        }
        return writer.make("a{oa{sa{sv}}}")
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
