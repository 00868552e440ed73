import CGLib
import ProgressBus
import ProgressModel
import ProgressCore

/// The tray item's menu, served as com.canonical.dbusmenu at /MenuBar: one entry per
/// top-level task the item stands for ("Copying photos — 42 %"), each with a submenu of
/// what the task allows (Pause or Resume, Cancel). A click on one of those is the same
/// request as RequestPause, RequestResume or RequestCancel, made at the front door.
///
/// Ids stay with their task and action for as long as the task is shown, so a host that
/// clicks an entry of a layout one revision old still reaches the task it showed; ids of
/// tasks that went are never given again.
final class TrayMenu {
    enum Action: String {
        case pause, resume, cancel

        /// What the job hears; its menu word comes from the catalog of the daemon's locale.
        var request: TaskRequest {
            switch self {
            case .pause: .pauseRequested
            case .resume: .resumeRequested
            case .cancel: .cancelRequested
            }
        }
    }

    struct Entry: Equatable {
        let id: Int32
        var label: String
        var enabled = true
        var children: [Entry] = []
        /// What a click asks for.
        var request: TaskCommand?

        static func == (left: Entry, right: Entry) -> Bool {
            left.id == right.id && left.label == right.label && left.enabled == right.enabled
                && left.children == right.children
        }
    }

    private(set) var revision: UInt32 = 1
    private(set) var entries: [Entry] = []
    private var ids: [String: Int32] = [:]
    private var nextID: Int32 = 1

    /// Rebuilds the entries; true when they differ from before (a new revision).
    @discardableResult
    func rebuild(_ tasks: [ProgressTask], texts: TaskDescribing) -> Bool {
        var kept: [String: Int32] = [:]
        func id(_ key: String) -> Int32 {
            let id = ids[key] ?? nextID
            if ids[key] == nil { nextID += 1 }
            kept[key] = id
            return id
        }
        let built = tasks.map { task -> Entry in
            var entry = Entry(id: id(task.name.text), label: Self.label(of: task, texts: texts))
            var actions: [(Action, Bool)] = []
            if task.isLive && task.pausable { actions.append(task.state == .paused ? (.resume, true) : (.pause, true)) }
            // A requested cancel stays in the menu, greyed, so that the menu says it was asked.
            if task.isLive && task.cancellable { actions.append((.cancel, !task.cancelRequested)) }
            entry.children = actions.map { action, enabled in
                Entry(id: id(action.rawValue + "\u{0}" + task.name.text), label: texts.requestLabel(action.request),
                      enabled: enabled, request: Self.command(action, task.name))
            }
            return entry
        }
        ids = kept
        guard built != entries else { return false }
        entries = built
        revision &+= 1
        return true
    }

    /// "Copying photos — 42 %": the title (isolated, its underscores doubled so none is
    /// taken for an access key) and the task's label; a task without a percent shows its
    /// sentence (paused, stalled, failed: …) instead.
    static func label(of task: ProgressTask, texts: TaskDescribing) -> String {
        if task.ownState == .running && !task.isStalled, let percent = task.wholePercent {
            return mnemonicSafe(ClientText.isolated(task.displayTitle)) + " — " + texts.label(wholePercent: percent)
        }
        return mnemonicSafe(texts.accessibleText(of: task))
    }

    static func mnemonicSafe(_ text: String) -> String { text.replacing("_", with: "__") }

    private static func command(_ action: Action, _ name: TaskName) -> TaskCommand {
        switch action {
        case .pause: .requestPause(name)
        case .resume: .requestResume(name)
        case .cancel: .requestCancel(name)
        }
    }

    // MARK: Reading

    private var root: Entry { Entry(id: 0, label: "", children: entries) }

    func entry(_ id: Int32) -> Entry? {
        func find(_ entry: Entry) -> Entry? {
            if entry.id == id { return entry }
            for child in entry.children { if let found = find(child) { return found } }
            return nil
        }
        return find(root)
    }

    /// The properties that differ from dbusmenu's defaults, those in `names` (all when empty).
    func properties(of entry: Entry, _ names: Set<String>) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            func add(_ key: String, _ value: @autoclosure () -> OpaquePointer) {
                if names.isEmpty || names.contains(key) { Variant.addEntry(builder, key, value()) }
            }
            if entry.id != 0 { add("label", Variant.string(entry.label)) }
            if !entry.enabled { add("enabled", g_variant_new_boolean(0)) }
            if !entry.children.isEmpty || entry.id == 0 { add("children-display", Variant.string("submenu")) }
        }
    }

    /// `(ia{sv}av)` for `entry`, its children `depth` levels down (-1: all).
    func layout(of entry: Entry, depth: Int32, _ names: Set<String>) -> OpaquePointer {
        Variant.tuple([
            g_variant_new_int32(entry.id), properties(of: entry, names),
            Variant.container("av") { builder in
                guard depth != 0 else { return }
                for child in entry.children {
                    Variant.add(builder, g_variant_new_variant(layout(of: child, depth: depth - 1, names)))
                }
            },
        ])
    }
}
