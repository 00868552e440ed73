import Foundation
import ProgressCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads the state directory's files with bounds, so that a damaged file costs a log line
/// and not the start: a file is checked with fstat before a byte is read (too large, or
/// sparse as a file extended after a crash is), and a journal is split into records of
/// bounded length, its torn tail found so that it can be cut before anything is appended.
enum StateFileReader {
    enum Refusal: Error, CustomStringConvertible {
        case tooLarge(bytes: Int, limit: Int)
        case sparse(bytes: Int, allocated: Int)
        case unreadable(String)

        var description: String {
            switch self {
            case .tooLarge(let bytes, let limit): "it is \(bytes) bytes, more than the \(limit) a state file may be"
            case .sparse(let bytes, let allocated): "it is sparse (\(bytes) bytes long, \(allocated) on disk), as a file padded after a crash is"
            case .unreadable(let reason): reason
            }
        }
    }

    /// The file's bytes; nil when there is no file.
    static func read(_ url: URL, maxBytes: Int) throws(Refusal) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(String(cString: strerror(errno)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        let size = Int(status.st_size)
        if size > maxBytes { throw .tooLarge(bytes: size, limit: maxBytes) }
        // Holes read as NUL bytes and hold no record: a mostly unallocated file is damage.
        let allocated = Int(status.st_blocks) * 512
        if size > 1 << 20, allocated < size / 2 { throw .sparse(bytes: size, allocated: allocated) }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// A journal's lines, in order.
    struct Journal {
        /// Each complete line (without its newline) and its number, from 1.
        var lines: [(number: Int, bytes: Data)] = []
        /// Line numbers too long to be a record or holding a NUL byte, never decoded.
        var damaged: [Int] = []
        /// The bytes up to and with the last newline: what is kept of the file.
        var completeLength = 0
        /// Bytes after the last newline: a record a crash tore while it was written.
        var tornBytes = 0
    }

    static func split(_ data: Data, maxLineBytes: Int) -> Journal {
        var journal = Journal()
        let newline = UInt8(ascii: "\n")
        var start = data.startIndex
        var number = 0
        while start < data.endIndex {
            guard let end = data[start...].firstIndex(of: newline) else {
                journal.tornBytes = data.endIndex - start
                break
            }
            number += 1
            let line = data[start..<end]
            if line.count > maxLineBytes || line.contains(0) {
                journal.damaged.append(number)
            } else if !line.isEmpty {
                journal.lines.append((number, Data(line)))
            }
            start = end + 1
            journal.completeLength = start - data.startIndex
        }
        return journal
    }

    /// Cuts the file back to `length` bytes and syncs it, before the journal is opened for
    /// appending: otherwise the next record would be glued onto the torn one and lost with it.
    static func cut(_ url: URL, to length: Int) -> Bool {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return ftruncate(descriptor, off_t(length)) == 0 && fsync(descriptor) == 0
    }
}

/// Why the state directory can not be used, as one line: the path, what is wrong, what to do.
public struct StateDirectoryError: Error, CustomStringConvertible {
    public let description: String
}
