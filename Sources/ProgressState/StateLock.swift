import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One daemon at a time reads and writes a state directory: it holds an exclusive lock
/// (flock) on a lock file, which holds its process id, for as long as it runs. The file is
/// in the user's runtime directory (`$XDG_RUNTIME_DIR/progressd/`, named after the state
/// directory's path), so that an open lock does not keep the state directory's filesystem
/// busy (one remounted after an error must be able to go); without a runtime directory it
/// is the state directory's own `lock`. Another progressd started on the same directory (a D-Bus activation while the
/// running daemon hands over to its upgraded program, a second `progressd` by hand) must
/// not read or cut a journal that one is writing: it finds the lock taken and stands by.
///
/// A daemon that replaces its own program (`ProgramReplacement`) keeps the lock across the
/// exec: the descriptor is left open for the new program, which finds its number in
/// `PROGRESSD_STATE_LOCK_FD` and takes it over, so that no other daemon can slip in
/// between the old program's last write and the new one's first read.
public final class StateLock {
    public static let inheritedVariable = "PROGRESSD_STATE_LOCK_FD"
    public let path: String
    private let descriptor: Int32

    public enum Outcome {
        /// This process holds the lock.
        case held(StateLock)
        /// Another process holds it: its process id, when the file says.
        case taken(holder: Int32?)
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Takes the lock of `directory` (which exists), or the one the program before this one
    /// left open for it (`inheritedVariable`). Throws a sentence when the file can not be
    /// opened.
    public static func take(in directory: URL, environment: [String: String]) throws(StateDirectoryError) -> Outcome {
        let path = lockPath(for: directory, environment: environment)
        if let inherited = environment[inheritedVariable].flatMap(Int32.init), let lock = adopt(inherited, path: path) {
            unsetenv(inheritedVariable)
            return .held(lock)
        }
        unsetenv(inheritedVariable)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateDirectoryError(
                description: "can not open the state directory's lock \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = readHolder(descriptor)
            close(descriptor)
            return .taken(holder: holder)
        }
        let lock = StateLock(path: path, descriptor: descriptor)
        lock.writeHolder()
        return .held(lock)
    }

    /// The inherited descriptor, when it is open on this directory's lock file (the same
    /// file, not a stray number) and holds its lock: flock on a description that holds the
    /// lock succeeds at once.
    private static func adopt(_ descriptor: Int32, path: String) -> StateLock? {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0, open.st_dev == named.st_dev,
              open.st_ino == named.st_ino, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return StateLock(path: path, descriptor: descriptor)
    }

    /// Where the lock of `directory` is: in the runtime directory when there is one that
    /// progressd can use, else in the state directory itself.
    static func lockPath(for directory: URL, environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let folder = runtime + "/progressd"
            if mkdir(folder, 0o700) == 0 || errno == EEXIST, access(folder, W_OK | X_OK) == 0 {
                // FNV-1a of the path: a short name that differs for every state directory.
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in directory.standardizedFileURL.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                return folder + "/state-" + String(hash, radix: 16) + ".lock"
            }
        }
        return directory.appendingPathComponent("lock").path
    }

    /// Leaves the lock open for the program this process execs next, and says where.
    public func keepAcrossExec() {
        _ = fcntl(descriptor, F_SETFD, 0)
        setenv(Self.inheritedVariable, String(descriptor), 1)
    }

    private func writeHolder() {
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    private static func readHolder(_ descriptor: Int32) -> Int32? {
        var buffer = [CChar](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count - 1, 0)
        guard count > 0 else { return nil }
        return Int32(String(String(cString: buffer).prefix { $0.isNumber }))
    }
}
