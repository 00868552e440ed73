/// The rules that run on time rather than on calls: stall, lease expiry and linger.
/// The daemon calls `housekeeping()` when `nextDeadline` comes; tests move a ManualClock.
extension TaskStore {
    /// When the next timing rule may fire for this task (monotonic microseconds).
    public func deadline(of name: TaskName) -> Int64? {
        tasks[name].flatMap(deadline(of:))
    }

    /// The earliest deadline of all tasks. A scan, so the daemon asks only after housekeeping.
    public var nextDeadline: Int64? {
        tasks.tasks.lazy.compactMap(deadline(of:)).min()
    }

    private func deadline(of task: ProgressTask) -> Int64? {
        if let outcome = task.outcomeTime {
            return outcome + Int64(task.lingerSeconds) * 1_000_000
        }
        var deadlines: [Int64] = []
        if task.lifetime == .lease { deadlines.append(task.lastActivity + Int64(task.leaseSeconds) * 1_000_000) }
        // A parent's stall follows its children; a paused job is not expected to report.
        if task.ownState == .running && !task.stalled && !task.hasChildren {
            deadlines.append(task.lastActivity + Int64(task.stallSeconds) * 1_000_000)
        }
        return deadlines.min()
    }

    /// Applies every timing rule that is due.
    func housekeeping() -> [TaskChange] {
        let now = clock.monotonicMicros
        var changes: [TaskChange] = []
        var expired: [TaskName] = []
        for name in sortedNames {
            guard var task = tasks[name] else { continue }  // removed with its parent
            let before = task
            if let outcome = task.outcomeTime {
                if now - outcome >= Int64(task.lingerSeconds) * 1_000_000 && !hasLiveDescendant(name) {
                    expired.append(name)
                }
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
