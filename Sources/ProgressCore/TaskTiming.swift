/// The rules that run on time rather than on calls: stall, lease expiry and linger.
/// The daemon calls `housekeeping()` when `nextDeadline` comes; tests move a ManualClock.
extension TaskStore {
    /// When the next timing rule may fire for this task (monotonic microseconds).
    func deadline(of name: TaskName) -> Int64? {
        tasks[name].flatMap(Self.timingDeadline(of:))
    }

    /// When housekeeping should next run: the earliest deadline queued, which may be early
    /// (housekeeping then finds nothing due and queues the real one), never late.
    var nextDeadline: Int64? { tasks.earliestDeadline }

    static func timingDeadline(of task: ProgressTask) -> Int64? {
        if let outcome = task.outcomeTime {
            return outcome + Int64(task.lingerSeconds) * 1_000_000
        }
        let lease: Int64? = task.lifetime == .lease ? task.lastActivity + Int64(task.leaseSeconds) * 1_000_000 : nil
        // A parent's stall follows its children; a paused job is not expected to report.
        let stall: Int64? = task.ownState == .running && !task.stalled && !task.hasChildren
            ? task.lastActivity + Int64(task.stallSeconds) * 1_000_000 : nil
        switch (lease, stall) {
        case (let lease?, let stall?): return min(lease, stall)
        case (let one?, nil), (nil, let one?): return one
        case (nil, nil): return nil
        }
    }

    /// An ended task that has lingered but still has a live descendant is looked at again
    /// this much later: its own deadline has passed, and would be due at once forever.
    static let lingerRecheckMicros: Int64 = 1_000_000

    /// Applies every timing rule that is due.
    func housekeeping() -> [TaskChange] {
        let now = clock.monotonicMicros
        var changes: [TaskChange] = []
        var expired: [TaskName] = []
        // In name order, as every walk of tasks is, so that the changes come in a stable order.
        let due = tasks.takeDue(now: now).sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }
        var waitingForChildren = Set<TaskName>()
        defer {
            for name in due {
                tasks.reschedule(name, at: waitingForChildren.contains(name) ? now + Self.lingerRecheckMicros : nil)
            }
        }
        for name in due {
            guard var task = tasks[name] else { continue }  // removed, perhaps with its parent
            let before = task
            if let outcome = task.outcomeTime, now - outcome >= Int64(task.lingerSeconds) * 1_000_000 {
                if hasLiveDescendant(name) { waitingForChildren.insert(name) } else { expired.append(name) }
                continue
            } else if task.outcomeTime != nil {
                continue
            }
            let idle = now - task.lastActivity
            if task.lifetime == .lease && idle >= Int64(task.leaseSeconds) * 1_000_000 {
                enterOutcome(.failed, &task)
                task.message = "expired: no update for \(task.leaseSeconds) seconds"
            } else if task.ownState == .running && !task.stalled && !task.hasChildren
                        && idle >= Int64(task.stallSeconds) * 1_000_000 {
                task.stalled = true
            } else {
                continue
            }
            changes += commitAndPropagate(task, replacing: before, activity: false)
        }
        for name in expired where tasks[name] != nil {
            let parent = tasks[name]?.parent
            changes += removeSubtree(name)
            if let parent, let parentTask = tasks[parent] { changes += recompute(parentTask) }
        }
        return changes
    }

    private func hasLiveDescendant(_ name: TaskName) -> Bool {
        (children[name] ?? []).contains { child in (tasks[child]?.isLive ?? false) || hasLiveDescendant(child) }
    }
}
