import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

// Copies and downloads: each reads one tool's own progress line, as that tool prints it
// (formats in /work/shared/design/terminal-and-system.md, from the tools' sources).

/// rsync --info=progress2: `      2,097,152  41%    1.92MB/s    0:00:01` and, at a file's
/// end, ` (xfr#1, to-chk=1/3)`. With an incremental file list (`ir-chk`) the percent may
/// go back; FractionGuard keeps the task from following it.
public struct RsyncParser: LineParser {
    public static let name = "rsync"
    static let line = Pattern(#"^\s*[\d,.']+\s+(\d{1,3})%\s+[\d.,]+[kMGT]?B/s\s+\d+:\d\d:\d\d"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let groups = Self.line.groups(in: line), let percent = Double(loose: groups[0]) else { return nil }
        return .percent(percent, phase: Self.name)
    }
}

/// curl's two meters on stderr: `-#` draws `#####     52.4%`; the default one has CR-refreshed
/// rows whose first column is the percent of the whole transfer and the second its size
/// (0 when the server did not say, and then the percent means nothing).
public struct CurlParser: LineParser {
    public static let name = "curl"
    static let bar = Pattern(#"^#*\s*(\d{1,3}\.\d)%$"#)
    static let size = #"[\d.]+[kMGTP]?"#
    static let meter = Pattern(
        #"^\s*(\d{1,3})\s+(\#(size))\s+\d{1,3}\s+\#(size)\s+\d{1,3}\s+\#(size)\s+\#(size)\s+\#(size)\s+"#
            + #"[-:\d]+\s+[-:\d]+\s+[-:\d]+\s+\#(size)$"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        if let groups = Self.bar.groups(in: line.trimmingWhitespace) {
            return .percent(Double(loose: groups[0]) ?? 0, phase: Self.name)
        }
        guard let groups = Self.meter.groups(in: line), groups[1] != "0", let percent = Double(loose: groups[0]) else {
            return nil
        }
        return .percent(percent, phase: Self.name)
    }
}

/// wget: the dot style (its default off a terminal), `   350K .......... ..........  13%  403M 1s`,
/// and the bar (on a terminal, or `--progress=bar:force`), `name   43%[=======>     ]   1.24M  1024KB/s`.
public struct WgetParser: LineParser {
    public static let name = "wget"
    static let dots = Pattern(#"^\s*\d+[KMG]\s[ .,]*\s(\d{1,3})%\s"#)
    static let bar = Pattern(#"\s(\d{1,3})%\[[=> ]*\]"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let groups = Self.dots.groups(in: line) ?? Self.bar.groups(in: line),
              let percent = Double(loose: groups[0]) else {
            return nil
        }
        return .percent(percent, phase: Self.name)
    }
}

/// dd status=progress: `2297856 bytes (2.3 MB, 2.2 MiB) copied, 2 s, 1.1 MB/s`, about once a
/// second, with no total: the total comes from the command line (the size of `if=` when it
/// is a regular file, else `count=` blocks of `bs=` or `ibs=`).
public struct DdParser: LineParser {
    public static let name = "dd"
    static let line = Pattern(#"^(\d+) bytes\b.* copied,"#)
    public let total: Double?

    public init(total: Double?) {
        self.total = total
    }

    public init(arguments: [String], fileSize: (String) -> UInt64? = FileSize.regularFile) {
        var operands: [String: String] = [:]
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { operands[parts[0]] = parts[1] }
        }
        var total = operands["if"].flatMap(fileSize).map { Double($0) }
        if let count = operands["count"].flatMap(Self.bytes),
           let block = (operands["ibs"] ?? operands["bs"]).flatMap(Self.bytes)
               ?? (operands["count"] != nil ? 512 : nil) {
            let counted = operands["iflag"]?.contains("count_bytes") == true ? count : count * block
            total = min(total ?? counted, counted)
        }
        self.init(total: total)
    }

    /// dd's sizes: 4096, 64k, 1M, 2G (powers of 1024), 1kB, 1MB (powers of 1000), 2x512.
    static func bytes(_ text: String) -> Double? {
        if text.contains("x") {
            return text.split(separator: "x").map { bytes(String($0)) }.reduce(Double?(1)) { product, factor in
                guard let product, let factor else { return nil }
                return product * factor
            }
        }
        let units: [(String, Double)] = [
            ("kB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12),
            ("KiB", 0x400), ("MiB", 0x10_0000), ("GiB", 0x4000_0000),
            ("c", 1), ("w", 2), ("b", 512),
            ("K", 0x400), ("k", 0x400), ("M", 0x10_0000), ("G", 0x4000_0000), ("T", 0x100_0000_0000),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return Double(text)
    }

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let total, let groups = Self.line.groups(in: line), let done = Double(loose: groups[0]) else {
            return nil
        }
        return .ratio(min(done, total), of: total, phase: Self.name)
    }
}

/// pv -n: one whole percent a line on stderr (pv needs -s SIZE unless its input is a file).
/// A bare number means nothing from other commands, so `auto` uses this only for pv.
public struct PvParser: LineParser {
    public static let name = "pv"
    static let line = Pattern(#"^\s*(\d{1,3})\s*$"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let groups = Self.line.groups(in: line), let percent = Double(loose: groups[0]), percent <= 100 else {
            return nil
        }
        return .percent(percent, phase: Self.name)
    }
}

/// The size of a regular file, or nil (a device, a pipe, nothing there).
public enum FileSize {
    public static func regularFile(_ path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(status.st_size)
    }
}
