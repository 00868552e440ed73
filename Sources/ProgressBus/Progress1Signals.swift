import ProgressModel

/// The signals of the Progress1 interfaces, declared once: what the daemon's outputs send,
/// checked against the embedded XML when the daemon starts.
public enum Progress1Signals {
    public static let manager = SignalTable(interface: BusNames.managerInterface, ["Announcement"])
    public static let task = SignalTable(
        interface: BusNames.taskInterface, ["CancelRequested", "PauseRequested", "ResumeRequested"])
    public static let subscription = SignalTable(
        interface: BusNames.subscriptionInterface, ["Announcement", "Changed", "Removed", "OverallChanged"])
    public static let objectManager = SignalTable(
        interface: BusNames.objectManagerInterface, ["InterfacesAdded", "InterfacesRemoved"])
    public static let tables = [manager, task, subscription, objectManager]

    public static let announcement = manager["Announcement"]
    public static let interfacesAdded = objectManager["InterfacesAdded"]
    public static let interfacesRemoved = objectManager["InterfacesRemoved"]
    public static let subscriptionAnnouncement = subscription["Announcement"]
    public static let changed = subscription["Changed"]
    public static let removed = subscription["Removed"]
    public static let subscriptionOverall = subscription["OverallChanged"]

    /// Checks every table against `xml` (the embedded Progress1 XML).
    public static func check(againstXML xml: String = BusNames.introspectionXML) throws(DaemonError) {
        for table in tables { try table.check(againstXML: xml) }
    }
}

/// Requests become signals on the task object, named after the request.
extension TaskRequest {
    public var signal: InterfaceSignal {
        switch self {
        case .cancelRequested: Progress1Signals.task["CancelRequested"]
        case .pauseRequested: Progress1Signals.task["PauseRequested"]
        case .resumeRequested: Progress1Signals.task["ResumeRequested"]
        }
    }
}
