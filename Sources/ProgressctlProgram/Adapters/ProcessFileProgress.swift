import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Progress of a command that prints none (cp, tar, gzip, xz, sha256sum, dd): as the
/// `progress` tool does, the largest regular file that the command or one of its children
/// has open for reading, its read position (/proc/PID/fdinfo `pos:`) against its size.
/// Only the user's own processes can be read this way, which is all a command run by
/// progressctl is. Each sample reads a few small files per process.
public struct ProcessFileProgress {
    public struct Sample: Equatable, Sendable {
        public var path: String
        public var position: UInt64
        public var size: UInt64

        public var reading: ProgressReading? {
            guard size > 0 else { return nil }
            // One phase per file: tar moves on to its next one from 0.
            return .ratio(Double(min(position, size)), of: Double(size), phase: "file:" + path,
                          message: URL(fileURLWithPath: path).lastPathComponent)
        }
    }

    let root: pid_t
    let proc: String

    public init(root: pid_t, proc: String = "/proc") {
        self.root = root
        self.proc = proc
    }

    /// The file being read, or nil when the command has no regular file open for reading.
    public func sample() -> Sample? {
        var best: Sample?
        for pid in processes() {
            let fdDirectory = "\(proc)/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { continue }
            for descriptor in descriptors {
                guard let info = Self.fdinfo(
                          try? String(contentsOfFile: "\(proc)/\(pid)/fdinfo/\(descriptor)", encoding: .utf8)),
                      info.readable else { continue }
                var status = stat()
                guard stat("\(fdDirectory)/\(descriptor)", &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                      status.st_size > 0 else { continue }
                let size = UInt64(status.st_size)
                if size > best?.size ?? 0 {
                    let path = (try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "\(fdDirectory)/\(descriptor)")) ?? descriptor
                    best = Sample(path: path, position: info.position, size: size)
                }
            }
        }
        return best
    }

    /// `pos:` and whether `flags:` (octal) allow reading: O_RDONLY or O_RDWR.
    static func fdinfo(_ text: String?) -> (position: UInt64, readable: Bool)? {
        guard let text else { return nil }
        var position: UInt64?
        var flags: Int?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace }
            guard parts.count == 2 else { continue }
            if parts[0] == "pos" { position = UInt64(parts[1]) }
            if parts[0] == "flags" { flags = Int(parts[1], radix: 8) }
        }
        guard let position, let flags else { return nil }
        return (position, flags & Int(O_ACCMODE) != Int(O_WRONLY))
    }

    /// The root process and its descendants, from each process's parent in /proc/PID/stat.
    func processes() -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return [root] }
        var children: [pid_t: [pid_t]] = [:]
        for entry in entries {
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "\(proc)/\(entry)/stat", encoding: .utf8),
                  let parent = Self.parent(inStat: stat) else { continue }
            children[parent, default: []].append(pid)
        }
        var found = [root]
        var index = 0
        while index < found.count, found.count < 4096 {
            found += children[found[index]] ?? []
            index += 1
        }
        return found
    }

    /// The fourth field of /proc/PID/stat, after the command name in parentheses (which
    /// may itself hold spaces and parentheses: the last ')' ends it).
    static func parent(inStat stat: String) -> pid_t? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
