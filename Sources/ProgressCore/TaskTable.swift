/// Every task, by name: the store's one table, shaped for memory per task.
///
/// A dictionary keeps its values in its buckets, and it doubles them as it grows, so it
/// holds between 1.3 and 2.7 buckets a task: with the task (over 300 bytes) in the bucket,
/// 100,001 tasks took 92 MB, 920 bytes each (heaptrack, bench's 100,000 idle tasks). Here a
/// bucket holds the name and a reference to a slot with the task, so the empty buckets cost
/// 24 bytes each and a task's own bytes are allocated once, at its size.
///
/// A class, not a struct: copies of a table would share its slots, and a change through one
/// would show in the other. The store owns the one table there is.
final class TaskTable {
    private final class Slot {
        var task: ProgressTask
        init(_ task: ProgressTask) { self.task = task }
    }

    private var slots: [TaskName: Slot] = [:]

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }
    var names: some Collection<TaskName> { slots.keys }

    /// The task named, copied out; setting stores the copy back into the task's slot (a new
    /// task gets a new slot), and setting nil removes it.
    subscript(name: TaskName) -> ProgressTask? {
        get { slots[name]?.task }
        set {
            guard let newValue else {
                slots[name] = nil
                return
            }
            if let slot = slots[name] { slot.task = newValue } else { slots[name] = Slot(newValue) }
        }
    }

    @discardableResult
    func removeValue(forKey name: TaskName) -> ProgressTask? {
        slots.removeValue(forKey: name)?.task
    }

    /// Every task, in no particular order.
    var tasks: some Sequence<ProgressTask> { slots.values.lazy.map { $0.task } }
}
