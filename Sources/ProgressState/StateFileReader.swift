import FoundationEssentials
import ProgressModel

#if canImport(Glibc)
import Glibc
#endif

/// Reads the state directory's files with bounds, so that a damaged file costs a log line
/// and not the start: a snapshot is checked with fstat before a byte is read (too large, or
/// sparse as a file extended after a crash is); a journal is read in a bounded stream of
/// records, its damage skipped and its torn tail found so that it can be cut before
/// anything is appended.
enum StateFileReader {
    enum Refusal: Error, CustomStringConvertible {
        case tooLarge(bytes: Int, limit: Int)
        case sparse(bytes: Int, allocated: Int)
        case unreadable(String)

        var description: String {
            switch self {
            case .tooLarge(let bytes, let limit): "it is \(bytes) bytes, more than the \(limit) a state file may be"
            case .sparse(let bytes, let allocated):
                "it is sparse (\(bytes) bytes long, \(allocated) on disk), as a file padded after a crash is"
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
        let file = OpenFile(adopting: descriptor, path: url.path)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        let size = Int(status.st_size)
        if size > maxBytes { throw .tooLarge(bytes: size, limit: maxBytes) }
        // Holes read as NUL bytes and hold no record: a mostly unallocated file is damage.
        let allocated = Int(status.st_blocks) * 512
        if size > 1 << 20, allocated < size / 2 { throw .sparse(bytes: size, allocated: allocated) }
        do throws(StateFileError) {
            return try file.readToEnd()
        } catch {
            throw .unreadable(error.reason)
        }
    }

    /// What a journal scan found besides its records.
    struct JournalScan {
        /// Lines too long to be a record, holding a NUL byte, or not decoded; the first
        /// ten of their numbers, for the log (a counter, so that a file of a million damaged
        /// lines costs no memory).
        var damaged = 0
        var firstDamaged: [Int] = []
        /// The bytes up to and with the last newline: what is kept of the file.
        var completeLength = 0
        /// Bytes after the last newline (a record a crash tore while it was written, or the
        /// padding a crash left): cut off before anything is appended.
        var tornBytes = 0
    }

    /// Bytes read from a journal at a time: what the scan holds besides one line.
    static let chunkBytes = 1 << 20
    /// lseek's SEEK_DATA (Linux), which Glibc's module does not import (_GNU_SOURCE).
    static let seekData: Int32 = 3

    /// Reads a journal in chunks, whatever its size, and hands each complete line with its
    /// number (from 1) to `record`, which says whether it was a record. The records before
    /// any damage are kept however large or padded the file is: memory is one chunk and one
    /// line of at most `maxLineBytes`; a line longer than that or holding a NUL byte is
    /// damage, skipped without being kept; a run of holes (a file extended after a crash)
    /// is skipped with SEEK_DATA instead of read, and holes up to the end are the torn tail.
    /// Nil when there is no file.
    static func scanJournal(
        _ url: URL, maxLineBytes: Int, record: (Int, Data) -> Bool
    ) throws(Refusal) -> JournalScan? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        let size = Int(status.st_size)
        var scan = JournalScan()
        var line = Data()
        var lineDamaged = false
        var number = 0
        var offset = 0
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        let newline = UInt8(ascii: "\n")
        while offset < size {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, chunkBytes, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var start = 0
            while start < count {
                let end = chunk[start..<count].firstIndex(of: newline) ?? count
                if !lineDamaged {
                    let piece = chunk[start..<end]
                    if line.count + piece.count > maxLineBytes || piece.contains(0) {
                        lineDamaged = true
                        line = Data()
                    } else {
                        line.append(contentsOf: piece)
                    }
                }
                guard end < count else { break }
                number += 1
                if lineDamaged || (!line.isEmpty && !record(number, line)) {
                    scan.damaged += 1
                    if scan.firstDamaged.count < 10 { scan.firstDamaged.append(number) }
                }
                line = Data()
                lineDamaged = false
                start = end + 1
                scan.completeLength = offset + start
            }
            offset += count
            // A line of NUL bytes may go on as holes: jump to the next data, if there is any.
            if lineDamaged && chunk[count - 1] == 0 {
                let next = lseek(descriptor, off_t(offset), seekData)
                if next < 0 { break }
                offset = max(offset, Int(next))
            }
        }
        scan.tornBytes = size - scan.completeLength
        return scan
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
