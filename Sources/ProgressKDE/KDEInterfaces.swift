import CGLib
import ProgressBus
import ProgressModel

/// The names of the KDE job view protocol, and its interfaces parsed from the embedded XML
/// (KDE's own, see org.kde.JobViews.xml), which GDBus checks every incoming call against.
public final class KDEInterfaces {
    public static let serverName = "org.kde.JobViewServer"
    public static let kuiserverName = "org.kde.kuiserver"
    public static let serverPath = "/JobViewServer"
    public static let serverInterface = "org.kde.JobViewServer"
    public static let serverV2Interface = "org.kde.JobViewServerV2"
    public static let kuiserverInterface = "org.kde.kuiserver"
    public static let viewV2Interface = "org.kde.JobViewV2"
    public static let viewV3Interface = "org.kde.JobViewV3"
    /// Where progressd's views live: one object per job, `JobView_<n>`.
    public static let viewsPath = "/org/progressd/kde"
    /// The namespace of the tasks the KDE input makes: `kde/<desktop entry>/<n>`. The
    /// forwarder never sends a task from it back to a JobViewServer.
    public static let taskPrefix = "kde/"
    /// The origin of a view's commands: the client that requested the view, so that its
    /// jobs pass the same access rules and caps as its Progress1 calls would.
    public static func inputOrigin(for client: ClientID) -> ChangeOrigin { .bridge("kde", client) }
    /// The input's own tidying (views a restart or a new server left behind).
    public static let daemonOrigin = ChangeOrigin.daemon("kde")
    /// Requests the user made in Plasma on a forwarded task.
    public static let forwarderOrigin = ChangeOrigin.daemon("kde-forwarder")

    public static let xml = String(decoding: PackageResources.org_kde_JobViews_xml, as: UTF8.self)

    private let descriptions: InterfaceDescriptions
    let server: UnsafeMutablePointer<GDBusInterfaceInfo>
    let serverV2: UnsafeMutablePointer<GDBusInterfaceInfo>
    let kuiserver: UnsafeMutablePointer<GDBusInterfaceInfo>
    let viewV2: UnsafeMutablePointer<GDBusInterfaceInfo>
    let viewV3: UnsafeMutablePointer<GDBusInterfaceInfo>

    public init() throws(DaemonError) {
        descriptions = try InterfaceDescriptions(xml: Self.xml, what: "the embedded KDE job view XML")
        server = try descriptions.interface(Self.serverInterface)
        serverV2 = try descriptions.interface(Self.serverV2Interface)
        kuiserver = try descriptions.interface(Self.kuiserverInterface)
        viewV2 = try descriptions.interface(Self.viewV2Interface)
        viewV3 = try descriptions.interface(Self.viewV3Interface)
    }

    public static func isKDETask(_ name: TaskName) -> Bool { name.text.hasPrefix(taskPrefix) }

    public static func viewPath(_ number: UInt64) -> String { "\(viewsPath)/JobView_\(number)" }

    /// A desktop entry or application name as one element of a task name: what a path
    /// separator or control character would break is replaced, and the length is bounded.
    public static func nameElement(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map {
            $0 == "/" || $0.properties.isWhitespace || $0.value < 0x20 ? "_" : Character($0)
        })
        let element = JobViewState.truncated(
            cleaned.hasSuffix(".desktop") ? String(cleaned.dropLast(8)) : cleaned, to: 100)
        return element.isEmpty ? "unknown" : element
    }
}
