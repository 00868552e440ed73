import ProgressModel

/// When the timing rules (stall, lease, linger) may next apply to some task, as a min-heap,
/// so that housekeeping visits only the tasks that are due and the next deadline is the top
/// of the heap. Both were a walk of every task (and a sort of every name) each time a
/// deadline came: after 100,000 Starts the daemon spent 14 s of CPU on their stalls.
///
/// An entry may be early, never late: a task whose deadline moved later (every update moves
/// its stall) keeps its earlier entry, which is checked when it comes and then replaced by
/// the task's real deadline (`TaskTable` and `housekeeping`). Entries of removed tasks are
/// dropped as they come, and the heap is rebuilt from the tasks when stale entries could
/// outnumber them.
struct DeadlineQueue {
    private var heap: [(deadline: Int64, name: TaskName)] = []

    var count: Int { heap.count }
    var earliest: Int64? { heap.first?.deadline }

    mutating func insert(_ deadline: Int64, _ name: TaskName) {
        heap.append((deadline, name))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes every entry due at `now`: the names, once each.
    mutating func takeDue(now: Int64) -> Set<TaskName> {
        var due = Set<TaskName>()
        while let top = heap.first, top.deadline <= now {
            due.insert(top.name)
            removeTop()
        }
        return due
    }

    /// Replaces every entry with `entries` (the tasks' real deadlines).
    mutating func rebuild(_ entries: [(deadline: Int64, name: TaskName)]) {
        heap = entries
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func removeTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && heap[left + 1].deadline < heap[left].deadline { smallest = left + 1 }
            guard heap[smallest].deadline < heap[parent].deadline else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
