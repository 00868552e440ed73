import ProgressModel

/// The fixed names of the progressd API, and the interface description embedded from
/// `dbus/org.progressd.Progress1.xml` at build time (one source for daemon, docs and tests).
public enum BusNames {
    public static let busName = "org.progressd.Progress1"
    public static let managerPath = "/org/progressd/Progress1"
    public static let tasksPath = "/org/progressd/Progress1/tasks"
    public static let managerInterface = "org.progressd.Progress1.Manager"
    public static let taskInterface = "org.progressd.Progress1.Task"
    public static let subscriptionInterface = "org.progressd.Progress1.Subscription"
    public static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    public static let errorPrefix = "org.progressd.Progress1.Error."

    public static let introspectionXML = String(decoding: PackageResources.org_progressd_Progress1_xml, as: UTF8.self)

    public static func taskPath(_ name: TaskName) -> String { tasksPath + "/" + name.pathElement }

    public static func errorName(_ error: ProgressError) -> String { errorPrefix + error.name }
}
