import ProgressModel

/// What one task looks like as an AT-SPI progress bar: role, states, value and the texts,
/// computed from the task alone (no GLib), numbers from at-spi2-core's atspi-constants.h.
struct AccessibleBar: Equatable {
    enum Role {
        static let progressBar: UInt32 = 42
        static let application: UInt32 = 75
    }

    /// AtspiStateType bit numbers; GetState sends them as two 32-bit words.
    enum State: Int, CaseIterable {
        case busy = 3
        case enabled = 8
        case sensitive = 24
        case showing = 25
        case visible = 30
        case indeterminate = 32

        /// The nick StateChanged carries as its detail.
        var nick: String {
            switch self {
            case .busy: "busy"
            case .enabled: "enabled"
            case .sensitive: "sensitive"
            case .showing: "showing"
            case .visible: "visible"
            case .indeterminate: "indeterminate"
            }
        }
    }

    static let interfaces = ["org.a11y.atspi.Accessible", "org.a11y.atspi.Value", "org.a11y.atspi.Component"]
    static let rootInterfaces = ["org.a11y.atspi.Accessible", "org.a11y.atspi.Application"]

    /// Value's range: whole percents. Orca 43 needs maximum ≠ minimum to call it a bar, and
    /// newer Orca's percent formula has no `- min`, so the minimum is 0.
    static let minimum = 0.0
    static let maximum = 100.0

    let name: String
    let description: String
    let states: Set<State>
    /// The whole percent; 0 while indeterminate, where Orca and ARIA read no value.
    let current: Double
    let valueText: String
    let attributes: [(String, String)]

    init(_ task: ProgressTask, texts: TaskDescribing) {
        name = task.displayTitle
        description = texts.detail(of: task)
        var states: Set<State> = [.visible, .showing, .enabled, .sensitive]
        if task.state == .running { states.insert(.busy) }
        if task.indeterminate { states.insert(.indeterminate) }
        self.states = states
        current = Double(task.wholePercent ?? 0)
        valueText = texts.accessibleText(of: task)
        attributes = [("task-name", task.name.text), ("app-id", task.appId), ("state", task.state.rawValue)]
    }

    /// `new`'s name, states and attributes with `old`'s value and description: what the
    /// tools have been told once names and states went out and the value still waits.
    init(merging new: AccessibleBar, valueFrom old: AccessibleBar) {
        name = new.name
        description = old.description
        states = new.states
        current = old.current
        valueText = old.valueText
        attributes = new.attributes
    }

    static func == (a: AccessibleBar, b: AccessibleBar) -> Bool {
        a.name == b.name && a.description == b.description && a.states == b.states && a.current == b.current
            && a.valueText == b.valueText && a.attributes.elementsEqual(b.attributes) { $0 == $1 }
    }

    /// The state set as GetState sends it: bits 0–31, then 32–63.
    var stateWords: [UInt32] { Self.words(states) }

    static func words(_ states: Set<State>) -> [UInt32] {
        var bits: UInt64 = 0
        for state in states { bits |= 1 << UInt64(state.rawValue) }
        return [UInt32(truncatingIfNeeded: bits), UInt32(truncatingIfNeeded: bits >> 32)]
    }

    /// The root: an application is visible, showing, enabled and sensitive too; an empty
    /// state set makes Orca ignore events from it.
    static let rootStates: Set<State> = [.visible, .showing, .enabled, .sensitive]

    /// Each bar's extents: Orca (43 and newer) does not speak a bar without a size, so each
    /// gets a small row of its own, one under the other, in every coordinate type.
    static func extents(index: Int) -> (x: Int32, y: Int32, width: Int32, height: Int32) {
        (0, Int32(clamping: index) &* 12, 200, 10)
    }
}

/// What changed between two looks at the same bar, for the events to send.
struct BarDifference {
    var name = false
    var description = false
    var value = false
    var gained: [AccessibleBar.State] = []
    var lost: [AccessibleBar.State] = []

    init(from old: AccessibleBar, to new: AccessibleBar) {
        name = old.name != new.name
        description = old.description != new.description
        value = old.current != new.current || old.valueText != new.valueText
        gained = AccessibleBar.State.allCases.filter { new.states.contains($0) && !old.states.contains($0) }
        lost = AccessibleBar.State.allCases.filter { old.states.contains($0) && !new.states.contains($0) }
    }
}
