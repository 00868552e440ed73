import ProgressModel

/// The shape of the accessible tree: the application root, whose children are the tasks
/// without a parent, each task's bar holding its child tasks' bars, as the task tree does.
/// Pure bookkeeping (no GLib): which bar has which object path, and where it sits, so that
/// GetIndexInParent, GetChildAtIndex and ChildrenChanged's index all agree.
///
/// Bars are named by a number handed out once (`/org/a11y/atspi/accessible/17`), not by
/// the task name: a path must stay the same for the bar's whole life, and a restarted task
/// name under a new bar must not be mistaken by an assistive tool's cache for the old one.
final class AccessibleTree {
    static let objectPathPrefix = "/org/a11y/atspi/accessible/"
    static let rootPath = "/org/a11y/atspi/accessible/root"
    static let nullPath = "/org/a11y/atspi/null"

    struct Bar {
        let name: TaskName
        let id: UInt64
        /// The parent task, nil for a child of the root.
        var parent: TaskName?
        var children: [TaskName] = []
        var path: String { AccessibleTree.objectPathPrefix + String(id) }
    }

    /// Where a bar was or is: its parent's path and its index there.
    struct Place: Equatable {
        let parentPath: String
        let index: Int
    }

    private(set) var bars: [TaskName: Bar] = [:]
    private var byID: [UInt64: TaskName] = [:]
    private(set) var rootChildren: [TaskName] = []
    private var nextID: UInt64 = 1

    var count: Int { bars.count }

    func bar(_ name: TaskName) -> Bar? { bars[name] }

    /// The task behind an object path, or nil for the root, the null object and paths that
    /// are no bar (any more).
    func task(atPath path: String) -> TaskName? {
        guard path.hasPrefix(Self.objectPathPrefix) else { return nil }
        return task(atNode: Substring(path.dropFirst(Self.objectPathPrefix.count)))
    }

    /// The task behind a node name under /org/a11y/atspi/accessible.
    func task(atNode node: Substring) -> TaskName? {
        guard let id = UInt64(node) else { return nil }
        return byID[id]
    }

    var nodeNames: [String] { ["root"] + byID.keys.sorted().map { String($0) } }

    func path(of name: TaskName?) -> String {
        guard let name else { return Self.rootPath }
        return bars[name]?.path ?? Self.rootPath
    }

    func children(of name: TaskName?) -> [TaskName] {
        guard let name else { return rootChildren }
        return bars[name]?.children ?? []
    }

    /// The bar's index among its parent's children.
    func place(of name: TaskName) -> Place? {
        guard let bar = bars[name] else { return nil }
        let siblings = children(of: bar.parent)
        guard let index = siblings.firstIndex(of: name) else { return nil }
        return Place(parentPath: path(of: bar.parent), index: index)
    }

    /// Adds a bar at the end of its parent's children (the root when the parent has no
    /// bar). Returns where it went, or nil when it was already there.
    @discardableResult
    func insert(_ name: TaskName, parent: TaskName?) -> Place? {
        guard bars[name] == nil else { return nil }
        let parent = parent.flatMap { bars[$0] != nil ? $0 : nil }
        let id = nextID
        nextID += 1
        bars[name] = Bar(name: name, id: id, parent: parent)
        byID[id] = name
        if let parent {
            bars[parent]!.children.append(name)
        } else {
            rootChildren.append(name)
        }
        return place(of: name)
    }

    /// Removes a bar; its children (if any are left) move up to the root, since a task's
    /// children outlive it only while the store says so. Returns where it was.
    @discardableResult
    func remove(_ name: TaskName) -> (place: Place, moved: [TaskName])? {
        guard let bar = bars[name], let place = place(of: name) else { return nil }
        if let parent = bar.parent {
            bars[parent]!.children.remove(at: place.index)
        } else {
            rootChildren.remove(at: place.index)
        }
        bars[name] = nil
        byID[bar.id] = nil
        for child in bar.children {
            bars[child]!.parent = nil
            rootChildren.append(child)
        }
        return (place, bar.children)
    }

    func removeAll() {
        bars.removeAll()
        byID.removeAll()
        rootChildren.removeAll()
    }

    /// Every bar, parents before their children, in child order: the order a tool walking
    /// the tree meets them, which the Cache's items follow too.
    var depthFirst: [TaskName] {
        var result: [TaskName] = []
        result.reserveCapacity(bars.count)
        func walk(_ names: [TaskName]) {
            for name in names {
                result.append(name)
                walk(bars[name]?.children ?? [])
            }
        }
        walk(rootChildren)
        return result
    }
}
