import ProgressCore

/// The task properties under their D-Bus names: the API's names, as Core declares them.
extension TaskProperty {
    public var dbusName: String { name }

    public init?(dbusName: String) { self.init(name: dbusName) }
}

/// Requests become signals on the task object, named after the request.
extension TaskRequest {
    public var signalName: String {
        switch self {
        case .cancelRequested: "CancelRequested"
        case .pauseRequested: "PauseRequested"
        case .resumeRequested: "ResumeRequested"
        }
    }
}
