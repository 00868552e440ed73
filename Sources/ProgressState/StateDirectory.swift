import FoundationEssentials
import ProgressModel

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's state on disk: a snapshot (`tasks-G.json`, all records) and a journal
/// (`journal-G.jsonl`, one line per write since that snapshot), G being the generation.
/// Each write appends to the journal and syncs it, so a transition costs one small write,
/// not a rewrite of every task. When the journal grows past twice the task count the
/// directory compacts: a new snapshot under generation G+1 is written to a temporary file,
/// synced and renamed into place, and only then is the old generation deleted; a crash at
/// any point leaves one complete generation to load.
public final class StateDirectory: TaskJournal {
    public let url: URL
    private var generation: Int
    private var journal: OpenFile?
    private var journalLines = 0
    /// All current records, for compaction, and how many there are, to know how large a
    /// snapshot would be; the daemon points both at its store (which knows its count, so no
    /// set of names is kept here a second time).
    private var currentRecords: () -> [TaskRecord] = { [] }
    private var recordCount: () -> Int = { 0 }
    /// Where problems after start-up are reported (the daemon's log).
    public var log: (String) -> Void = { line in
        let text = Array("progressd: \(line)\n".utf8)
        _ = text.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// `$STATE_DIRECTORY` (what systemd's StateDirectory= made writable for the unit), else
    /// `$XDG_STATE_HOME/progressd`, or `~/.local/state/progressd` when that is unset.
    public static func defaultURL(environment: [String: String]) -> URL {
        if let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first, directory.hasPrefix("/") {
            return URL(fileURLWithPath: String(directory))
        }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("progressd")
        }
        let home = environment["HOME"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) } ?? "/"
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/progressd")
    }

    private let limits: Limits
    /// The journal's last line may be torn (a crash, a failed write): the next write starts
    /// on a line of its own.
    private var endTornLine = false
    /// The journal's length in lines past which it compacts, unless twice the task count is more.
    private var compactAfter = 1_024
    /// errno of the last failed open of the journal.
    private var openFailure: Int32 = 0

    /// Throws StateDirectoryError, one line naming the path and what to do, when the
    /// directory can not be made or written: the daemon must not start without it.
    public init(url: URL, limits: Limits = Limits()) throws {
        self.url = url
        self.limits = limits
        let fix = "remove or rename it, or start progressd with --state-directory naming a directory it may write"
        var status = stat()
        if stat(url.path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw StateDirectoryError(description: "the state directory \(url.path) is not a directory: \(fix)")
        }
        do throws(StateFileError) {
            try OpenFile.makeDirectories(url.path, mode: 0o700)
        } catch {
            throw StateDirectoryError(
                description: "can not create the state directory \(url.path) (\(error.path): \(error.reason)): \(fix)")
        }
        guard access(url.path, W_OK | X_OK) == 0 else {
            throw StateDirectoryError(
                description: "can not write the state directory \(url.path) "
                    + "(\(String(cString: strerror(errno)))): \(fix)")
        }
        generation = (Self.generations(in: url, prefix: "tasks-", suffix: ".json")
            + Self.generations(in: url, prefix: "journal-", suffix: ".jsonl")).max() ?? 0
    }

    /// Reads the newest generation. A damaged snapshot is moved aside (its name ends in
    /// `.corrupt`) and the daemon starts empty; a damaged journal line is skipped.
    /// Returns the records and a line for the log about each problem.
    public func load() -> (records: [TaskRecord], problems: [String]) {
        var problems: [String] = []
        let decoder = JSONDecoder()
        var records: [String: TaskRecord] = [:]
        var order: [String] = []
        func put(_ record: TaskRecord) {
            if records.updateValue(record, forKey: record.name) == nil { order.append(record.name) }
        }
        let snapshot = snapshotURL(generation)
        if FileManager.default.fileExists(atPath: snapshot.path) {
            do {
                let data = try StateFileReader.read(snapshot, maxBytes: limits.maxStateFileBytes) ?? Data()
                for record in try decoder.decode([TaskRecord].self, from: data) { put(record) }
            } catch {
                let aside = moveAside(snapshot)
                moveAside(journalURL(generation))
                problems.append(
                    "the state file \(snapshot.path) is unreadable (\(error)); moved it to \(aside.path) "
                        + "and started empty")
                openJournal()
                return ([], problems)
            }
        }
        problems += replayJournal { entry in
            if let record = entry.put { put(record) }
            if let name = entry.remove { records[name] = nil }
        }
        removeOtherGenerations()
        openJournal()
        let loaded = order.compactMap { records[$0] }
        recordCount = { [count = loaded.count] in count }
        return (loaded, problems)
    }

    /// Replays this generation's journal into `apply` in a bounded stream, whatever the
    /// file's size: damaged lines are skipped and counted; a torn tail (a record cut by a
    /// crash mid-write, or the NUL padding a crash leaves) is cut off the file before
    /// anything is appended, and every record before it is kept. Returns a line for the log
    /// about each.
    private func replayJournal(_ apply: (JournalEntry) -> Void) -> [String] {
        let file = journalURL(generation)
        let decoder = JSONDecoder()
        let scanned: StateFileReader.JournalScan?
        do {
            scanned = try StateFileReader.scanJournal(file, maxLineBytes: limits.maxRecordBytes) { _, line in
                guard let entry = try? decoder.decode(JournalEntry.self, from: line) else { return false }
                apply(entry)
                journalLines += 1
                return true
            }
        } catch {
            let aside = moveAside(file)
            return [
                "the journal \(file.path) was not read: \(error); moved it to \(aside.path), "
                    + "its changes since the last snapshot are lost"
            ]
        }
        guard let journal = scanned else { return [] }
        var problems: [String] = []
        if journal.damaged > 0 {
            let numbers = journal.firstDamaged.map(String.init).joined(separator: ", ")
            problems.append(
                "skipped \(journal.damaged) damaged \(journal.damaged == 1 ? "record" : "records") of \(file.path) "
                    + "(line \(numbers)\(journal.damaged > 10 ? ", …" : "")): those changes are lost")
        }
        if journal.tornBytes > 0 {
            let cut = StateFileReader.cut(file, to: journal.completeLength)
            // Uncut, the torn record is ended with a newline of its own, so the next one is not glued onto it.
            endTornLine = !cut
            problems.append(
                "the end of \(file.path) after its last complete record was torn by a crash (or padded): "
                    + (cut
                        ? "cut \(journal.tornBytes) bytes from its end"
                        : "could not cut its \(journal.tornBytes) bytes (\(String(cString: strerror(errno))))"))
        }
        return problems
    }

    public func attach(recordsSource: @escaping () -> [TaskRecord], recordCount: @escaping () -> Int) {
        currentRecords = recordsSource
        self.recordCount = recordCount
    }

    /// Appends the records and removals and syncs them; throws StorageFull or StorageFailed
    /// when they are not on the disk, with nothing of them kept: a record the disk took half
    /// of (ENOSPC mid-record) is cut off again, so the space is free and the next record is
    /// not glued to it (where the cut fails too, the next write starts on a line of its own).
    public func write(_ records: [TaskRecord], removed: [String]) throws(ProgressError) {
        guard !records.isEmpty || !removed.isEmpty else { return }
        var data = Data()
        if endTornLine { data.append(UInt8(ascii: "\n")) }
        for record in records { append(JournalEntry(put: record), to: &data) }
        for name in removed { append(JournalEntry(remove: name), to: &data) }
        if journal == nil { openJournal() }
        guard let journal else {
            throw refusal(StateFileError(path: journalURL(generation).path, action: "open", code: openFailure))
        }
        var length: Int?
        do throws(StateFileError) {
            length = try journal.length()
            try journal.write(data)
            try journal.syncData()
        } catch {
            if let length { try? journal.truncate(to: length) }
            endTornLine = true
            // Closed, so that a person can unmount the failed filesystem and mount it again
            // (fixed, or with space): the next write opens the journal afresh.
            self.journal = nil
            throw refusal(error)
        }
        endTornLine = false
        journalLines += records.count + removed.count
        if journalLines > max(compactAfter, 2 * recordCount()) {
            do throws(StateFileError) {
                try compact()
            } catch {
                // The journal still holds everything: try again after as many lines again.
                compactAfter = journalLines + 1_024
                log("could not compact the state into \(snapshotURL(generation + 1).path): \(error)")
            }
        }
    }

    /// Writes a new generation from every current record (a compaction); throws as `write`
    /// does. After a failed write this makes the state directory whole again: what only the
    /// daemon's memory held meanwhile is on the disk once it succeeds.
    public func rewrite() throws(ProgressError) {
        do throws(StateFileError) {
            try compact()
        } catch {
            throw refusal(error)
        }
    }

    /// The error a client hears for a write the state directory did not take.
    private func refusal(_ error: StateFileError) -> ProgressError {
        var status = statvfs()
        let free = statvfs(url.path, &status) == 0 ? "\(Int(status.f_bavail) * Int(status.f_frsize)) bytes" : "unknown"
        let kept = "nothing of this change was kept"
        if error.isFull {
            return .storageFull("the state directory \(url.path) is full (\(free) free): \(error); \(kept)")
        }
        return .storageFailed("the state directory \(url.path) failed (\(free) free): \(error); \(kept)")
    }

    /// Writes a new generation from `currentRecords` and drops the old one.
    private func compact() throws(StateFileError) {
        let records = currentRecords()
        let next = generation + 1
        let temporary = url.appendingPathComponent("tasks-\(next).json.tmp")
        do throws(StateFileError) {
            guard let data = try? encoder.encode(records) else {
                throw StateFileError(path: temporary.path, action: "encode", code: EINVAL)
            }
            let file = try OpenFile(temporary.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            try file.write(data)
            // A generation that may not be on the disk must not replace the one that is.
            try file.sync()
            guard rename(temporary.path, snapshotURL(next).path) == 0 else {
                throw StateFileError(path: snapshotURL(next).path, action: "rename \(temporary.lastPathComponent) to")
            }
            syncDirectory()
        } catch {
            unlink(temporary.path)
            throw error
        }
        journal = nil
        generation = next
        journalLines = 0
        compactAfter = 1_024
        endTornLine = false
        removeOtherGenerations()
        openJournal()
    }

    // MARK: Files

    private struct JournalEntry: Codable {
        var put: TaskRecord?
        var remove: String?
    }

    private func append(_ entry: JournalEntry, to data: inout Data) {
        guard let line = try? encoder.encode(entry) else { return }
        data.append(line)
        data.append(UInt8(ascii: "\n"))
    }

    private func snapshotURL(_ generation: Int) -> URL { url.appendingPathComponent("tasks-\(generation).json") }
    private func journalURL(_ generation: Int) -> URL { url.appendingPathComponent("journal-\(generation).jsonl") }

    /// Opened for appending: each write lands at the end, whatever else touched the file.
    private func openJournal() {
        let path = journalURL(generation).path
        let existed = access(path, F_OK) == 0
        do throws(StateFileError) {
            journal = try OpenFile(path, flags: O_WRONLY | O_APPEND | O_CREAT)
        } catch {
            log("\(error)")
            openFailure = error.code
            journal = nil
            return
        }
        if !existed { syncDirectory() }
    }

    private func removeOtherGenerations() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for name in names
        where (name.hasPrefix("tasks-") || name.hasPrefix("journal-")) && !name.hasSuffix(".corrupt") {
            if name != snapshotURL(generation).lastPathComponent && name != journalURL(generation).lastPathComponent {
                try? FileManager.default.removeItem(at: url.appendingPathComponent(name))
            }
        }
    }

    @discardableResult
    private func moveAside(_ file: URL) -> URL {
        let aside = file.appendingPathExtension("\(Int(Date().timeIntervalSince1970)).corrupt")
        try? FileManager.default.moveItem(at: file, to: aside)
        return aside
    }

    private func syncDirectory() {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    private static func generations(in url: URL, prefix: String, suffix: String) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
            return Int(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
    }
}
