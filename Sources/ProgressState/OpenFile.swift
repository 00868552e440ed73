import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor the state directory reads or writes, closed when the last reference
/// goes. Plain POSIX calls, so that an error says what the system said ("No space left on
/// device") and the path it was about.
final class OpenFile {
    let descriptor: Int32
    let path: String

    /// Opens `path` with open(2)'s `flags` (close-on-exec always).
    init(_ path: String, flags: Int32, mode: mode_t = 0o600) throws(StateFileError) {
        let descriptor = open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw StateFileError(path: path, action: "open") }
        self.descriptor = descriptor
        self.path = path
    }

    /// Takes ownership of a descriptor opened elsewhere.
    init(adopting descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// All of `data`, however many write(2) calls it takes.
    func write(_ data: Data) throws(StateFileError) {
        let failed = data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let result = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { return true }
                written += result
            }
            return false
        }
        if failed { throw StateFileError(path: path, action: "write") }
    }

    /// Everything from the current position to the end.
    func readToEnd() throws(StateFileError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw StateFileError(path: path, action: "read") }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// fsync(2): the file's data and size are on the disk.
    func sync() throws(StateFileError) {
        while fsync(descriptor) != 0 {
            guard errno == EINTR else { throw StateFileError(path: path, action: "sync") }
        }
    }

    /// fdatasync(2): the file's data and size are on the disk (not its times). Where a write
    /// the page cache took fails for real: EIO from the device, or ENOSPC from a filesystem
    /// that allocates late.
    func syncData() throws(StateFileError) {
        while fdatasync(descriptor) != 0 {
            guard errno == EINTR else { throw StateFileError(path: path, action: "sync") }
        }
    }

    /// The file's length, from fstat(2).
    func length() throws(StateFileError) -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw StateFileError(path: path, action: "stat") }
        return Int(status.st_size)
    }

    /// ftruncate(2) to `length` bytes.
    func truncate(to length: Int) throws(StateFileError) {
        while ftruncate(descriptor, off_t(length)) != 0 {
            guard errno == EINTR else { throw StateFileError(path: path, action: "truncate") }
        }
    }

    /// mkdir -p with `mode` for the directories it makes; the error names the first that failed.
    static func makeDirectories(_ path: String, mode: mode_t) throws(StateFileError) {
        var made = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            made += "/" + component
            if mkdir(made, mode) != 0 && errno != EEXIST { throw StateFileError(path: made, action: "create") }
        }
    }
}

/// A system call on a state file failed: the call, the path, and the system's reason.
struct StateFileError: Error, CustomStringConvertible {
    let path: String
    let action: String
    /// errno.
    let code: Int32
    let reason: String

    /// Reads errno: make it right after the call that failed.
    init(path: String, action: String) {
        self.path = path
        self.action = action
        code = errno
        reason = String(cString: strerror(code))
    }

    /// An error with a known errno (`code`), not read from errno.
    init(path: String, action: String, code: Int32) {
        self.path = path
        self.action = action
        self.code = code
        reason = String(cString: strerror(code))
    }

    /// The disk is full or the user's quota is: the error that space coming back cures.
    var isFull: Bool { code == ENOSPC || code == EDQUOT }

    var description: String { "could not \(action) \(path): \(reason)" }
}
