import CGLib
import ProgressBus
import ProgressCore
import ProgressModel
import ProgressPolicies

/// org.progressd.Progress1.Manager's methods, one row each. A mutating method parses its
/// arguments into a command and hands it to `ProgressService.run`, which goes through the
/// front door, persists, replies and publishes, in that order; a read flushes what outputs
/// hold for what it shows, and replies.
extension ProgressService {
    typealias ManagerHandler = @Sendable (ProgressService, MethodCall) throws(ProgressError) -> Void

    static let managerMethods = MethodTable<ManagerHandler>(interface: BusNames.managerInterface, [
        ("Start", { service, call throws(ProgressError) in
            let name = try service.frontDoor.name(call.string(0))
            let update = try TaskUpdate.parse(
                call.options(1, for: "Start", accepting: service.frontDoor.properties.startKeys), for: .start,
                limits: service.frontDoor.limits, properties: service.frontDoor.properties)
            service.run(
                Mutation(command: .start(name, update)) {
                    Variant.tuple([Variant.objectPath(BusNames.taskPath(name))])
                }, call)
        }),
        ("Update", { service, call throws(ProgressError) in
            let name = try service.frontDoor.name(call.string(0))
            let update = try TaskUpdate.parse(
                call.options(1, for: "Update", accepting: service.frontDoor.properties.updateKeys), for: .update,
                limits: service.frontDoor.limits, properties: service.frontDoor.properties)
            service.run(Mutation(command: .update(name, update)), call)
        }),
        ("UpdateMany", { service, call throws(ProgressError) in
            service.run(Mutation(command: .updateMany(try service.parseBatch(call.child(0)))), call)
        }),
        ("SetFraction", { service, call throws(ProgressError) in
            service.run(
                Mutation(command: .setFraction(try service.frontDoor.name(call.string(0)), call.double(1))), call)
        }),
        ("Pulse", { service, call throws(ProgressError) in
            service.run(Mutation(command: .pulse(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("Finish", { service, call throws(ProgressError) in
            service.run(Mutation(command: .finish(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("Fail", { service, call throws(ProgressError) in
            service.run(
                Mutation(command: .fail(try service.frontDoor.name(call.string(0)), message: call.string(1))), call)
        }),
        ("Remove", { service, call throws(ProgressError) in
            service.run(Mutation(command: .remove(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("RequestCancel", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestCancel(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("RequestPause", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestPause(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("RequestResume", { service, call throws(ProgressError) in
            service.run(Mutation(command: .requestResume(try service.frontDoor.name(call.string(0)))), call)
        }),
        ("List", { service, call throws(ProgressError) in
            // Written in serialized form, in slices, as the large reads are.
            let tasks = try service.largeReads.refuseIfTooBig("List", .name, [])
            let reply = SlicedReply(
                .names(after: "", []), element: .name, maxBytes: service.frontDoor.limits.maxReplyBytes,
                expected: tasks)
            service.largeReads.write(reply, reading: .tasks([])) { reply in
                service.replyWhole("List", reply, tasks: tasks, call)
            }
        }),
        ("Snapshot", { service, call throws(ProgressError) in
            let texts = try service.context.texts(forLocale: call.string(0))
            let element = SlicedReply.Element.byName(service.variants, texts)
            let all = service.frontDoor.properties.all
            let tasks = try service.largeReads.refuseIfTooBig("Snapshot", element, all)
            let reply = SlicedReply(
                .names(after: "", all), element: element, maxBytes: service.frontDoor.limits.maxReplyBytes,
                expected: tasks)
            service.largeReads.write(reply, reading: .everything) { reply in
                service.replyWhole("Snapshot", reply, tasks: tasks, call)
            }
        }),
        ("SnapshotPage", { service, call throws(ProgressError) in
            let texts = try service.context.texts(forLocale: call.string(0))
            let after = call.string(1)
            let asked = Int(call.uint32(2))
            let limits = service.frontDoor.limits
            let all = service.frontDoor.properties.all
            let element = SlicedReply.Element.byName(service.variants, texts)
            // A page holds no more values than a reply may (`Limits.maxReplyValues`).
            let most = min(limits.maxPageTasks,
                           max(1, (limits.maxReplyValues - SlicedReply.Element.valuesAround) / element.values(all)))
            let count = asked == 0 ? most : min(asked, most)
            // The page starts after `after` in name order, found without walking the table.
            let reply = SlicedReply(.names(after: after, all), element: element,
                                    maxBytes: limits.maxReplyBytes, maxCount: count, expected: count)
            service.largeReads.write(reply, reading: .everything) { reply in
                let next = reply.complete ? "" : (reply.last?.text ?? after)
                call.reply(Variant.tuple([reply.make(), Variant.string(next)]))
            }
        }),
        ("Changes", { service, call throws(ProgressError) in
            let since = Variant.uint64Child(call.parameters, 0)
            let options = try ChangesOptions.parse(call.options(1, for: "Changes", accepting: ChangesOptions.keys))
            let texts = try service.context.texts(forLocale: options.locale)
            try service.changes(since: since, options, texts: texts, call)
        }),
        ("Describe", { service, call throws(ProgressError) in
            let name = try service.frontDoor.name(call.string(0))
            let texts = try service.context.texts(forLocale: call.string(1))
            let task = service.context.read(.task(name)) { $0.task(name) }
            guard let task else { throw .noSuchTask("no task is named '\(name.text)'") }
            call.reply(Variant.tuple([service.variants.properties(.all, of: task, texts: texts)]))
        }),
        ("Subscribe", { service, call throws(ProgressError) in
            let options = try SubscriptionOptions.parse(
                call.options(0, for: "Subscribe", accepting: SubscriptionOptions.keys),
                limits: service.frontDoor.limits)
            let path = try service.subscriptions.subscribe(options, by: call.sender)
            call.reply(Variant.tuple([Variant.objectPath(path)]))
        }),
        ("Unsubscribe", { service, call throws(ProgressError) in
            try service.subscriptions.unsubscribe(path: call.string(0), by: call.sender)
            call.reply(nil)
        }),
        ("Aggregate", { service, call throws(ProgressError) in
            // The held values, and the Overall signal they change, before the reply.
            let summary = service.context.read(.manager) { $0.summary(appId: call.string(0)) }
            call.reply(Variant.tuple([service.variants.summary(summary)]))
        }),
    ])

    /// UpdateMany's entries, every one parsed before any is applied, so that malformed
    /// input changes nothing; the error names the entry.
    private func parseBatch(_ entries: OpaquePointer) throws(ProgressError) -> [NamedUpdate] {
        defer { g_variant_unref(entries) }
        let count = Int(g_variant_n_children(entries))
        if count > frontDoor.limits.maxBatchEntries {
            throw .limitExceeded("UpdateMany got \(count) entries; the limit is \(frontDoor.limits.maxBatchEntries)")
        }
        var parsed: [NamedUpdate] = []
        parsed.reserveCapacity(count)
        for index in 0..<count {
            let entry = Variant.child(entries, index)
            defer { g_variant_unref(entry) }
            do throws(ProgressError) {
                parsed.append(NamedUpdate(
                    name: try frontDoor.name(Variant.stringChild(entry, 0)),
                    update: try TaskUpdate.parse(
                        Variant.optionsChild(entry, 1, for: "UpdateMany", accepting: frontDoor.properties.updateKeys),
                        for: .update, limits: frontDoor.limits, properties: frontDoor.properties)))
            } catch {
                throw error.prefixed("entry \(index)")
            }
        }
        return parsed
    }

    /// Replies with the whole of a read of every task, or refuses it as too big.
    func replyWhole(_ method: String, _ reply: SlicedReply, tasks: Int, _ call: MethodCall) {
        let value = reply.make()
        guard reply.complete else {
            g_variant_unref(g_variant_ref_sink(value))
            return call.reply(
                ProgressError.tooBigForOneReply(method, tasks: tasks, limit: frontDoor.limits.maxReplyBytes))
        }
        call.reply(Variant.tuple([value]))
    }

    /// Changes' reply: the serial, whether it is a reset, the tasks with the properties asked
    /// for that changed, and the names removed. The serial is the one the read arrived at:
    /// a task that changes while the reply is written shows its newer values, and is in the
    /// next poll's answer too.
    private func changes(
        since: UInt64, _ options: ChangesOptions, texts: TaskDescribing, _ call: MethodCall
    ) throws(ProgressError) {
        let element = SlicedReply.Element.byName(variants, texts)
        let limit = frontDoor.limits.maxReplyBytes
        let maxValues = frontDoor.limits.maxReplyValues
        // Bounded like Snapshot: a reset of every task, or a poll after a long pause, must
        // still fit in one reply.
        let tooBig = { (tasks: Int, values: Int?) in
            ProgressError.limitExceeded(
                "Changes would answer with \(tasks) tasks, "
                    + (values.map { "\($0) values, more than the \(maxValues) one reply may carry" }
                        ?? "more than \(limit) bytes, the most one reply may carry")
                    + "; ask for fewer \"properties\", or read the Serial, then the tasks with SnapshotPage, "
                    + "then poll Changes from that Serial")
        }
        // One read: the index answers from what it heard (held values first), and the least
        // the reply takes is reckoned from the same tasks.
        typealias Reckoned = (ChangeIndex.Answer, SlicedReply.Rows, least: Int, values: Int, Int, [TaskName], ReadScope)
        let (answer, rows, least, values, expected, removed, scope) = try context.read(.tasks([])) {
            (tasks: TaskView) throws(ProgressError) -> Reckoned in
            let answer = try changeIndex.changes(since: since)
            switch answer {
            case .reset:
                let least = tasks.leastReplyBytes(
                    perTask: largeReads.leastBytes(of: element, options.properties, in: tasks))
                let values = tasks.count * element.values(options.properties)
                return (answer, .names(after: "", options.properties), least, values, tasks.count, [], .everything)
            case .changes(let changed, let gone):
                let listed = changed.compactMap { name, properties -> (TaskName, TaskProperties)? in
                    let wanted = properties.intersection(options.properties)
                    return wanted.isEmpty || !tasks.contains(name) ? nil : (name, wanted)
                }
                let least = listed.reduce(0) {
                    $0 + $1.0.text.utf8.count + largeReads.leastBytes(of: element, $1.1, in: tasks)
                }
                let values = listed.reduce(gone.count) { $0 + element.values($1.1) }
                // What outputs hold for the tasks the reply shows goes out first.
                return (answer, .listed(listed), least, values, listed.count, gone, .tasks(listed.map(\.0)))
            }
        }
        let allValues = SlicedReply.Element.valuesAround + values
        if allValues > maxValues { throw tooBig(expected, allValues) }
        if least > limit { throw tooBig(expected, nil) }
        let serial = changeIndex.lastSequence
        let reply = SlicedReply(rows, element: element, maxBytes: limit, expected: expected)
        largeReads.write(reply, reading: scope) { reply in
            let tasks = reply.make()
            guard reply.complete else {
                g_variant_unref(g_variant_ref_sink(tasks))
                return call.reply(tooBig(expected, nil))
            }
            let names = Variant.container("as") { builder in
                for name in removed { Variant.add(builder, Variant.string(name.text)) }
            }
            call.reply(Variant.tuple([
                g_variant_new_uint64(guint64(serial)), g_variant_new_boolean(answer == .reset ? 1 : 0), tasks, names,
            ]))
        }
    }

    /// The handler order of every mutating call: front door (validate, authorize, mutate),
    /// persist, reply, publish (the stream holds the reply until what it says is on disk).
    /// A change the disk refuses is taken back before the reply, which is then StorageFull
    /// or StorageFailed, and no output hears of it.
    func run(_ mutation: Mutation, _ call: MethodCall) {
        let outcome = context.frontDoor.perform(mutation.command, by: .client(call.sender))
        context.submitHeld(outcome)
        context.stream.submit(outcome.batch) { refusal in Self.reply(outcome, mutation, call, refusal) }
    }

    private static func reply(
        _ outcome: CommandOutcome, _ mutation: Mutation, _ call: MethodCall, _ refusal: ProgressError?
    ) {
        if let error = refusal ?? outcome.error { call.reply(error) } else { call.reply(mutation.replyValue()) }
    }

    func handleManagerCall(
        _ handler: ManagerHandler, _ client: ClientID, _ parameters: OpaquePointer, _ invocation: OpaquePointer
    ) {
        let call = MethodCall(
            sender: client, path: BusNames.managerPath, parameters: parameters, invocation: invocation,
            maxReplyBytes: frontDoor.limits.maxReplyBytes)
        do throws(ProgressError) {
            try handler(self, call)
        } catch {
            call.reply(error)
        }
    }
}
