/// The life of a task. `running` and `paused` are live; the other three are outcomes,
/// after which the task accepts no updates until it is started again.
public enum TaskState: String, CaseIterable, Sendable {
    case running, paused, finished, failed, cancelled

    public var isOutcome: Bool {
        switch self {
        case .running, .paused: false
        case .finished, .failed, .cancelled: true
        }
    }
}
