import ProgressModel

/// Every task, by name: the store's one table, shaped for memory per task.
///
/// A dictionary keeps its values in its buckets, and it doubles them as it grows, so it
/// holds between 1.3 and 2.7 buckets a task: with the task (over 300 bytes) in the bucket,
/// 100,001 tasks took 92 MB, 920 bytes each (heaptrack, bench's 100,000 idle tasks). Here a
/// bucket holds the name and a reference to a slot with the task, so the empty buckets cost
/// 24 bytes each and a task's own bytes are allocated once, at its size.
///
/// Every change passes here, so the table also keeps the running totals of `Overall` and of
/// each application's `Aggregate`, and the queue of the timing rules' deadlines.
///
/// A class, not a struct: copies of a table would share its slots, and a change through one
/// would show in the other. The store owns the one table there is.
final class TaskTable {
    private final class Slot {
        var task: ProgressTask
        init(_ task: ProgressTask) { self.task = task }
    }

    private var slots: [TaskName: Slot] = [:]
    /// Where each change records the task as it was, while changes may have to be taken back.
    var undo: TaskUndo?
    /// The names in byte order, for reads in name order and pages that start at a name.
    private var order = TaskNameOrder()
    private var overall = SummaryTotals()
    /// The UTF-8 bytes of every name, kept as tasks come and go: a large read's reply holds
    /// each name, so with a least size a task's other values take, it bounds the reply from
    /// below without a walk (`TaskStore.leastReplyBytes`).
    private(set) var nameBytes = 0
    private var byApp: [String: SummaryTotals] = [:]
    /// The totals' sums of doubles are counted afresh after as many changes as there are
    /// tasks (at least `changesBetweenRecounts`), so their drift stays that of a few changes
    /// and the recount costs a constant per change.
    private var changesSinceRecount = 0
    static let changesBetweenRecounts = 1_024
    /// The timing rules' deadline of a task (`TaskStore.timingDeadline`).
    private let deadline: (ProgressTask) -> Int64?
    private var deadlines = DeadlineQueue()
    /// The queue is rebuilt from the tasks once it holds more than twice their number and
    /// this many entries (stale ones, early ones, those of removed tasks).
    static let spareDeadlines = 1_024

    init(deadline: @escaping (ProgressTask) -> Int64?) {
        self.deadline = deadline
    }

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }
    var names: some Collection<TaskName> { slots.keys }
    /// Every name in the byte order of its UTF-8.
    var namesInOrder: some Sequence<TaskName> { order.all }
    /// The names after `text` in that order, found without a walk of the table.
    func names(after text: String) -> some Sequence<TaskName> { order.names(after: text) }

    /// The task named, copied out; setting stores the copy back into the task's slot (a new
    /// task gets a new slot), and setting nil removes it.
    subscript(name: TaskName) -> ProgressTask? {
        get { slots[name]?.task }
        set {
            undo?.saw(name, before: slots[name]?.task)
            guard let newValue else {
                removeValue(forKey: name)
                return
            }
            let earlier: Int64?
            if let slot = slots[name] {
                earlier = deadline(slot.task)
                moveTotals(from: slot.task, to: newValue)
                slot.task = newValue
                // Counted once the slot holds the new task: a recount reads every slot.
                countChange()
            } else {
                earlier = nil
                slots[name] = Slot(newValue)
                order.insert(name)
                nameBytes += name.text.utf8.count
                addToTotals(newValue)
            }
            // A deadline that moved later keeps its earlier entry (checked when it comes).
            if let due = deadline(newValue), earlier.map({ due < $0 }) ?? true { schedule(due, name) }
        }
    }

    /// The owner of the task named, read in its slot.
    func owner(of name: TaskName) -> TaskOwner? { slots[name]?.task.owner }

    /// Reads the task named in its slot, without copying it out (the slot's task is passed
    /// in place, as `modify` passes it). Nil when there is no such task.
    func read<Result>(_ name: TaskName, _ body: (inout ProgressTask) -> Result) -> Result? {
        guard let slot = slots[name] else { return nil }
        return body(&slot.task)
    }

    /// Changes the task named in its slot, without copying it out and back: `body` gets the
    /// task to change and a copy of it as it was. What `body` throws leaves the task as it
    /// was. Nil when there is no such task.
    func modify<Result>(
        _ name: TaskName, _ body: (inout ProgressTask, ProgressTask) throws(ProgressError) -> Result
    ) throws(ProgressError) -> Result? {
        guard let slot = slots[name] else { return nil }
        undo?.saw(name, before: slot.task)
        let (result, due) = try change(&slot.task, body)
        // A recount and a rebuilt queue read every slot, this one's too: not while it changes.
        countChange()
        if let due { schedule(due, name) }
        return result
    }

    /// `modify` on the slot's task, which the table reads here as a parameter: a read of the
    /// slot's property itself would copy the task for each call it is passed to. Also gives
    /// the task's deadline if it moved earlier (one that moved later keeps its entry).
    private func change<Result>(
        _ task: inout ProgressTask, _ body: (inout ProgressTask, ProgressTask) throws(ProgressError) -> Result
    ) throws(ProgressError) -> (Result, earlierDeadline: Int64?) {
        let before = task
        let result: Result
        do {
            result = try body(&task, before)
        } catch {
            task = before
            throw error
        }
        moveTotals(from: before, to: task)
        guard let due = deadline(task), deadline(before).map({ due < $0 }) ?? true else { return (result, nil) }
        return (result, due)
    }

    @discardableResult
    func removeValue(forKey name: TaskName) -> ProgressTask? {
        guard let task = slots.removeValue(forKey: name)?.task else { return nil }
        undo?.saw(name, before: task)
        order.remove(name)
        nameBytes -= name.text.utf8.count
        removeFromTotals(task)
        return task
    }

    // MARK: Deadlines

    /// The earliest entry of the deadline queue; it may be early, never late.
    var earliestDeadline: Int64? { deadlines.earliest }

    /// The tasks whose entries are due; each must be `rescheduled` once its rules ran.
    func takeDue(now: Int64) -> Set<TaskName> { deadlines.takeDue(now: now) }

    /// Queues the task's deadline as it is now (after its entry was taken), or `at` a given time.
    func reschedule(_ name: TaskName, at time: Int64? = nil) {
        guard let task = slots[name]?.task, let due = time ?? deadline(task) else { return }
        schedule(due, name)
    }

    private func schedule(_ due: Int64, _ name: TaskName) {
        deadlines.insert(due, name)
        if deadlines.count > 2 * slots.count + Self.spareDeadlines {
            deadlines.rebuild(slots.compactMap { name, slot in deadline(slot.task).map { ($0, name) } })
        }
    }

    // MARK: Totals

    /// The totals of the top-level tasks, or of one application's.
    func totals(appId: String?) -> SummaryTotals {
        guard let appId else { return overall }
        return byApp[appId] ?? SummaryTotals()
    }

    private func addToTotals(_ task: ProgressTask) {
        count(task)
        countChange()
    }

    private func countChange() {
        changesSinceRecount += 1
        if changesSinceRecount > max(Self.changesBetweenRecounts, slots.count) { recount() }
    }

    /// A task that stays in the table changed from `old` to `new`: when it stays in the same
    /// application's totals (as every value change does), those are found once. The caller
    /// counts the change once the slot holds `new`, since a recount reads the slots.
    private func moveTotals(from old: ProgressTask, to new: ProgressTask) {
        if old.parent == nil, new.parent == nil, old.appId == new.appId {
            overall.count(old, -1)
            overall.count(new, 1)
            // An application's totals with no task left in them go, as in `removeFromTotals`.
            if byApp[new.appId, default: SummaryTotals()].moveLeavingEmpty(from: old, to: new) {
                byApp[new.appId] = nil
            }
        } else {
            removeFromTotals(old)
            count(new)
        }
    }

    private func removeFromTotals(_ task: ProgressTask) {
        overall.count(task, -1)
        guard task.parent == nil else { return }
        byApp[task.appId]?.count(task, -1)
        if byApp[task.appId]?.isEmpty == true { byApp[task.appId] = nil }
    }

    private func recount() {
        overall = SummaryTotals()
        byApp = [:]
        for slot in slots.values { count(slot.task) }
        changesSinceRecount = 0
    }

    private func count(_ task: ProgressTask) {
        overall.count(task, 1)
        if task.parent == nil { byApp[task.appId, default: SummaryTotals()].count(task, 1) }
    }

    /// Every task, in no particular order.
    var tasks: some Sequence<ProgressTask> { slots.values.lazy.map { $0.task } }
}
