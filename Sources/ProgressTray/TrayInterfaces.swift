import CGLib
import Glibc
import ProgressBus
import ProgressModel

/// The names of the StatusNotifierItem and dbusmenu protocols, and their interfaces parsed
/// from the embedded XML (KDE's and libdbusmenu's, see the two .xml files here), which
/// GDBus checks every incoming call against.
final class TrayInterfaces {
    static let itemInterface = "org.kde.StatusNotifierItem"
    static let watcherInterface = "org.kde.StatusNotifierWatcher"
    static let watcherName = "org.kde.StatusNotifierWatcher"
    static let watcherPath = "/StatusNotifierWatcher"
    static let menuInterface = "com.canonical.dbusmenu"
    static let itemPath = "/StatusNotifierItem"
    static let menuPath = "/MenuBar"
    /// Plasma's job tracker: while another process owns it, progressd's tasks are shown
    /// there (JobViewForwarder) and the tray item steps aside.
    static let jobTrackerName = "org.kde.JobViewServer"
    /// Owned by progressd's GNOME Shell extension while it runs (gnome-shell/): it shows the
    /// tasks in the top bar itself, so the tray item steps aside, one icon rather than two
    /// where the AppIndicator extension would show the item too.
    static let shellIndicatorName = "org.progressd.ShellIndicator"
    /// The bridge the menu's requests come through, with the identity of the host that sent
    /// the click: any connection can call Event, so a sandboxed app reaches only its own tasks.
    static let bridge = "tray"

    /// The item's well-known name, as the specification spells it: one item per process.
    static var serviceName: String { "org.kde.StatusNotifierItem-\(getpid())-1" }

    static let itemXML = String(decoding: PackageResources.org_kde_StatusNotifierItem_xml, as: UTF8.self)
    static let menuXML = String(decoding: PackageResources.com_canonical_dbusmenu_xml, as: UTF8.self)

    private let itemDescriptions: InterfaceDescriptions
    private let menuDescriptions: InterfaceDescriptions
    let item: UnsafeMutablePointer<GDBusInterfaceInfo>
    let menu: UnsafeMutablePointer<GDBusInterfaceInfo>

    init() throws(DaemonError) {
        itemDescriptions = try InterfaceDescriptions(xml: Self.itemXML, what: "the embedded StatusNotifierItem XML")
        menuDescriptions = try InterfaceDescriptions(xml: Self.menuXML, what: "the embedded dbusmenu XML")
        item = try itemDescriptions.interface(Self.itemInterface)
        menu = try menuDescriptions.interface(Self.menuInterface)
    }
}
