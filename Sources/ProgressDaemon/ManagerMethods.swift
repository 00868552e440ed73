import CGLib
import ProgressBus
import ProgressCore

/// org.progressd.Progress1.Manager's methods, one row each. A mutating method parses its
/// arguments into a command and hands it to `ProgressService.run`, which goes through the
/// front door, persists, replies and publishes, in that order; a read flushes what outputs
/// hold for what it shows, and replies.
extension ProgressService {
    typealias ManagerHandler = @Sendable (ProgressService, MethodCall) throws(ProgressError) -> Void
    /// A handler in a type of the daemon's own, so that it is stored as its type says,
    /// not in the most general form an array of closures keeps.
    struct ManagerRow {
        let run: ManagerHandler
    }

    static let managerMethods = MethodTable<ManagerHandler>(interface: BusNames.managerInterface, [
        ("Start", { service, call throws(ProgressError) in
            let name = try service.store.name(call.string(0))
            let update = try TaskUpdate.parse(call.options(1, for: "Start", accepting: service.store.properties.startKeys), for: .start, limits: service.store.limits, properties: service.store.properties)
            service.run(Mutation(command: .start(name, update)) { Variant.tuple([Variant.objectPath(BusNames.taskPath(name))]) }, call)
        }),
        ("Update", { service, call throws(ProgressError) in
            let name = try service.store.name(call.string(0))
            let update = try TaskUpdate.parse(call.options(1, for: "Update", accepting: service.store.properties.updateKeys), for: .update, limits: service.store.limits, properties: service.store.properties)
            service.run(Mutation(command: .update(name, update)), call)
        }),
        ("UpdateMany", { service, call throws(ProgressError) in
            service.run(Mutation(command: .updateMany(try service.parseBatch(call.child(0)))), call)
        }),
        ("SetFraction", { service, call throws(ProgressError) in
            service.run(Mutation(command: .setFraction(try service.store.name(call.string(0)), call.double(1))), call)
        }),
        ("Pulse", { service, call throws(ProgressError) in
            service.run(Mutation(command: .pulse(try service.store.name(call.string(0)))), call)
        }),
        ("Finish", { service, call throws(ProgressError) in
            service.run(Mutation(command: .finish(try service.store.name(call.string(0)))), call)
        }),
        ("Fail", { service, call throws(ProgressError) in
            service.run(Mutation(command: .fail(try service.store.name(call.string(0)), message: call.string(1))), call)
        }),
        ("Remove", { service, call throws(ProgressError) in
            service.run(Mutation(command: .remove(try service.store.name(call.string(0)))), call)
        }),
        ("RequestCancel", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestCancel(try service.store.name(call.string(0)))), call)
        }),
        ("RequestPause", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestPause(try service.store.name(call.string(0)))), call)
        }),
        ("RequestResume", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestResume(try service.store.name(call.string(0)))), call)
        }),
        ("List", { service, call throws(ProgressError) in
            // Written in serialized form, as the large reads are: a GVariant a name would be
            // two allocations and a copy each.
            let store = service.store
            let writer = SerializedVariant(capacity: min(store.count * 24, store.limits.maxReplyBytes))
            var complete = true
            writer.boundedArray(alignment: 1, maxBytes: store.limits.maxReplyBytes - TaskVariants.replyMargin) { element in
                for name in store.namesInOrder where !element({ writer.string(name.text) }) {
                    complete = false
                    return
                }
            }
            let names = writer.make("as")
            guard complete else {
                g_variant_unref(g_variant_ref_sink(names))
                throw .tooBigForOneReply("List", tasks: store.count, limit: store.limits.maxReplyBytes)
            }
            call.reply(Variant.tuple([names]))
        }),
        ("Snapshot", { service, call throws(ProgressError) in
            let texts = try service.context.texts(forLocale: call.string(0))
            service.context.flushBeforeRead(.everything)
            let limit = service.store.limits.maxReplyBytes
            let page = service.variants.tasksByName(
                service.store.namesInOrder.lazy.compactMap(service.store.task).map { [properties = service.store.properties] in ($0, properties.all) }, texts: texts,
                maxBytes: limit, expected: service.store.count)
            guard page.complete else {
                g_variant_unref(g_variant_ref_sink(page.value))
                throw .tooBigForOneReply("Snapshot", tasks: service.store.count, limit: limit)
            }
            call.reply(Variant.tuple([page.value]))
        }),
        ("SnapshotPage", { service, call throws(ProgressError) in
            let texts = try service.context.texts(forLocale: call.string(0))
            let after = call.string(1)
            let asked = Int(call.uint32(2))
            let limits = service.store.limits
            let count = asked == 0 ? limits.maxPageTasks : min(asked, limits.maxPageTasks)
            service.context.flushBeforeRead(.everything)
            // The page starts after `after` in name order, found without walking the table.
            let page = service.variants.tasksByName(
                service.store.names(after: after).lazy.compactMap(service.store.task).map { [properties = service.store.properties] in ($0, properties.all) },
                texts: texts, maxBytes: limits.maxReplyBytes, maxCount: count, expected: count)
            let next = page.complete ? "" : (page.last?.text ?? after)
            call.reply(Variant.tuple([page.value, Variant.string(next)]))
        }),
        ("Changes", { service, call throws(ProgressError) in
            let since = Variant.uint64Child(call.parameters, 0)
            let options = try ChangesOptions.parse(call.options(1, for: "Changes", accepting: ChangesOptions.keys))
            let texts = try service.context.texts(forLocale: options.locale)
            let (reply, tasks) = try service.changes(since: since, options, texts: texts)
            call.reply(reply)
        }),
        ("Describe", { service, call throws(ProgressError) in
            let name = try service.store.name(call.string(0))
            let texts = try service.context.texts(forLocale: call.string(1))
            guard service.store.task(name) != nil else { throw .noSuchTask("no task is named '\(name.text)'") }
            service.context.flushBeforeRead(.task(name))
            call.reply(Variant.tuple([service.variants.properties(.all, of: service.store.task(name)!, texts: texts)]))
        }),
        ("Subscribe", { service, call throws(ProgressError) in
            let options = try SubscriptionOptions.parse(call.options(0, for: "Subscribe", accepting: SubscriptionOptions.keys), limits: service.store.limits)
            let path = try service.subscriptions.subscribe(options, by: call.sender)
            call.reply(Variant.tuple([Variant.objectPath(path)]))
        }),
        ("Unsubscribe", { service, call throws(ProgressError) in
            try service.subscriptions.unsubscribe(path: call.string(0), by: call.sender)
            call.reply(nil)
        }),
        ("Aggregate", { service, call throws(ProgressError) in
            // The held values, and the Overall signal they change, before the reply.
            service.context.flushBeforeRead(.manager)
            call.reply(Variant.tuple([service.variants.summary(service.store.summary(appId: call.string(0)))]))
        }),
    ])

    /// UpdateMany's entries, every one parsed before any is applied, so that malformed
    /// input changes nothing; the error names the entry.
    private func parseBatch(_ entries: OpaquePointer) throws(ProgressError) -> [NamedUpdate] {
        defer { g_variant_unref(entries) }
        let count = Int(g_variant_n_children(entries))
        if count > store.limits.maxBatchEntries {
            throw .limitExceeded("UpdateMany got \(count) entries; the limit is \(store.limits.maxBatchEntries)")
        }
        var parsed: [NamedUpdate] = []
        parsed.reserveCapacity(count)
        for index in 0..<count {
            let entry = Variant.child(entries, index)
            defer { g_variant_unref(entry) }
            do throws(ProgressError) {
                parsed.append(NamedUpdate(
                    name: try store.name(Variant.stringChild(entry, 0)),
                    update: try TaskUpdate.parse(Variant.optionsChild(entry, 1, for: "UpdateMany", accepting: store.properties.updateKeys), for: .update, limits: store.limits, properties: store.properties)))
            } catch {
                throw error.prefixed("entry \(index)")
            }
        }
        return parsed
    }

    /// Changes' reply: the serial, whether it is a reset, the tasks with the properties asked
    /// for that changed, and the names removed.
    private func changes(
        since: UInt64, _ options: ChangesOptions, texts: TaskDescribing
    ) throws(ProgressError) -> (reply: OpaquePointer, tasks: Int) {
        // The index answers from what it heard: held values first.
        context.frontDoor.applyStaged()
        let answer = try changeIndex.changes(since: since)
        var removed: [TaskName] = []
        var rows: [(ProgressTask, TaskProperties)] = []
        switch answer {
        case .reset:
            context.flushBeforeRead(.everything)
            rows = store.namesInOrder.compactMap(store.task).map { ($0, options.properties) }
        case .changes(let changed, let gone):
            removed = gone
            for (name, properties) in changed {
                let wanted = properties.intersection(options.properties)
                guard !wanted.isEmpty, let task = store.task(name) else { continue }
                context.flushBeforeRead(.task(name))
                rows.append((task, wanted))
            }
        }
        // Bounded like Snapshot: a reset of every task, or a poll after a long pause, must
        // still fit in one reply.
        let limit = store.limits.maxReplyBytes
        let page = variants.tasksByName(rows, texts: texts, maxBytes: limit, expected: rows.count)
        guard page.complete else {
            g_variant_unref(g_variant_ref_sink(page.value))
            throw .limitExceeded(
                "Changes would answer with \(rows.count) tasks, more than \(limit) bytes, the most one reply may carry; "
                    + "ask for fewer \"properties\", or read the Serial, then the tasks with SnapshotPage, then poll Changes from that Serial")
        }
        let tasks = page.value
        let names = Variant.container("as") { builder in
            for name in removed { Variant.add(builder, Variant.string(name.text)) }
        }
        let reply = Variant.tuple([
            g_variant_new_uint64(guint64(changeIndex.lastSequence)), g_variant_new_boolean(answer == .reset ? 1 : 0), tasks, names,
        ])
        return (reply, page.count)
    }

    /// The handler order of every mutating call: front door (validate, authorize, mutate),
    /// persist, reply, publish (the stream holds the reply until what it says is on disk).
    func run(_ mutation: Mutation, _ call: MethodCall) {
        let outcome = context.frontDoor.perform(mutation.command, by: .client(call.sender))
        context.stream.submit(outcome.batch) { Self.reply(outcome, mutation, call) }
    }

    private static func reply(_ outcome: CommandOutcome, _ mutation: Mutation, _ call: MethodCall) {
        if let error = outcome.error { call.reply(error) } else { call.reply(mutation.replyValue()) }
    }

    func handleManagerCall(_ handler: ManagerHandler, _ client: ClientID, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        let call = MethodCall(
            sender: client, path: BusNames.managerPath, parameters: parameters, invocation: invocation,
            maxReplyBytes: store.limits.maxReplyBytes)
        do throws(ProgressError) {
            try handler(self, call)
        } catch {
            call.reply(error)
        }
    }

    /// GDBus checks calls against the XML and the table matches it, so only a malformed
    /// registration gets here.
    func refuseUnknownMethod(_ invocation: OpaquePointer) {
        let method = String(cString: g_dbus_method_invocation_get_method_name(invocation))
        g_dbus_method_invocation_return_dbus_error(
            invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method) on \(BusNames.managerInterface)")
    }
}
