import Glibc
import ProgressBus
import ProgressModel

/// The application behind a system job, where it can be known: PackageKit names the
/// connection that created a transaction (`Sender`), the system bus names its process
/// (`GetConnectionCredentials`), and the process's executable names the front end. Only
/// known front ends get an app id (so the dock shows the job on GNOME Software's icon);
/// `pkcon` and scripts get none.
enum FrontEnd {
    /// Executable names of package front ends and their desktop ids.
    static let appIds = [
        "gnome-software": "org.gnome.Software",
        "plasma-discover": "org.kde.discover",
    ]

    /// Asks the system bus for `sender`'s process, then reads its executable's name; nothing
    /// once `cancellable` is cancelled.
    static func appId(
        of sender: String, on connection: OpaquePointer, cancellable: BusCancellable, done: @escaping (String?) -> Void
    ) {
        BusCall.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetConnectionCredentials",
            Variant.tuple([Variant.string(sender)]), replyType: "(a{sv})", cancellable: cancellable
        ) { result in
            guard case .success(let reply) = result,
                  let pid = VariantDictionary(child: 0, of: reply).unsigned("ProcessID")
            else { return done(nil) }
            done(executableName(pid: pid).flatMap { appIds[$0] })
        }
    }

    /// The base name of `/proc/PID/exe`, or nil when the process is gone or not ours to read.
    static func executableName(pid: UInt64) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        var path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An executable replaced by an upgrade while it runs (what a package front end does).
        if path.hasSuffix(" (deleted)") { path.removeLast(10) }
        return path.split(separator: "/").last.map(String.init)
    }
}
