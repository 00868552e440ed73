/// Reads a command's terminal output as it arrives, in chunks that may split anything:
/// takes out OSC 9;4 sequences (ConEmu's progress, ended by ESC \ or BEL) as readings,
/// passes everything else on unchanged, and gives the parsers the printable text without
/// escape sequences. It also knows when the output is between escape sequences, the only
/// place where progressctl may put one of its own.
public struct TerminalStreamFilter: Sendable {
    /// Whether OSC 9;4 stays in what is shown (a pipe, or a terminal that asked for it).
    public let keepsProgressSequences: Bool

    public struct Output: Equatable, Sendable {
        /// The bytes to show, in order.
        public var shown: [UInt8] = []
        /// The text for the line parsers: no escape sequences, \r and \n kept.
        public var text: [UInt8] = []
        public var readings: [ProgressReading] = []
    }

    private enum State: Sendable {
        case text, escape, csi, escapeIntermediate
        /// Inside an OSC; `candidate` while it may still be 9;4.
        case osc(candidate: Bool), oscEscape(candidate: Bool)
    }

    private static let escape: UInt8 = 0x1B, bell: UInt8 = 0x07
    private static let prefix = Array("9;4;".utf8)
    /// Longer than any OSC 9;4 ("9;4;1;100"): past it a sequence is something else.
    private static let longestProgressPayload = 16

    private var state = State.text
    /// The bytes of an OSC that may still be 9;4, held back until it ends.
    private var held: [UInt8] = []

    public init(keepsProgressSequences: Bool) {
        self.keepsProgressSequences = keepsProgressSequences
    }

    /// True between escape sequences, when no bytes are held back.
    public var isBetweenSequences: Bool {
        if case .text = state { return true }
        return false
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> Output {
        var output = Output()
        for byte in bytes { step(byte, into: &output) }
        return output
    }

    private mutating func step(_ byte: UInt8, into output: inout Output) {
        switch state {
        case .text:
            if byte == Self.escape {
                state = .escape
                held = [byte]
            } else {
                output.shown.append(byte)
                output.text.append(byte)
            }
        case .escape:
            held.append(byte)
            switch byte {
            case UInt8(ascii: "]"): state = .osc(candidate: true); return
            case UInt8(ascii: "["): state = .csi
            case 0x20...0x2F: state = .escapeIntermediate
            default: state = .text
            }
            release(into: &output)
        case .csi:
            output.shown.append(byte)
            if (0x40...0x7E).contains(byte) { state = .text }
        case .escapeIntermediate:
            output.shown.append(byte)
            if (0x30...0x7E).contains(byte) { state = .text }
        case .osc(let candidate):
            if byte == Self.bell {
                finishOSC(byte, candidate: candidate, into: &output)
            } else if byte == Self.escape {
                state = .oscEscape(candidate: candidate)
                if candidate { held.append(byte) } else { output.shown.append(byte) }
            } else if candidate {
                held.append(byte)
                let payload = held.dropFirst(2)
                let stillProgress = payload.count <= Self.prefix.count
                    ? payload.elementsEqual(Self.prefix.prefix(payload.count))
                    : payload.starts(with: Self.prefix) && payload.count <= Self.longestProgressPayload
                if !stillProgress {
                    state = .osc(candidate: false)
                    release(into: &output)
                }
            } else {
                output.shown.append(byte)
            }
        case .oscEscape(let candidate):
            // ESC \ ends the sequence; anything else after ESC is malformed: end it there.
            finishOSC(byte, candidate: candidate, into: &output)
        }
    }

    private mutating func finishOSC(_ byte: UInt8, candidate: Bool, into output: inout Output) {
        state = .text
        guard candidate else {
            output.shown.append(byte)
            return
        }
        held.append(byte)
        let terminatorLength = byte == Self.bell ? 1 : 2
        let payload = String(decoding: held.dropFirst(2).dropLast(terminatorLength), as: UTF8.self)
        if let reading = Self.reading(payload) {
            output.readings.append(reading)
            if keepsProgressSequences { output.shown += held }
            held = []
        } else {
            release(into: &output)
        }
    }

    private mutating func release(into output: inout Output) {
        output.shown += held
        held = []
    }

    /// Bytes held back that should not wait any longer: the command has said nothing more
    /// for a while, or has ended. While it runs, an OSC that may still be 9;4 stays held:
    /// a terminal shows nothing of an OSC before its end either, and it is at most
    /// `longestProgressPayload` bytes; released early, a slow writer's 9;4 would reach the
    /// terminal. A lone ESC is released, since text may follow it.
    public mutating func flush(commandEnded: Bool) -> [UInt8] {
        switch state {
        case .osc(candidate: true), .oscEscape(candidate: true):
            guard commandEnded else { return [] }
            state = .text
        case .escape:
            state = .text
        default:
            break
        }
        defer { held = [] }
        return held
    }

    /// The phase of what the sequences say: their fraction never moves back.
    static let phase = "osc"

    /// "9;4;STATE;PROGRESS" (the progress optional for states 0, 2, 3 and 4).
    static func reading(_ payload: String) -> ProgressReading? {
        let fields = payload.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3, fields.count <= 4, fields[0] == "9", fields[1] == "4",
              let state = Int(fields[2]) else { return nil }
        let value = fields.count == 4 && !fields[3].isEmpty ? Double(fields[3]).map { min(max($0, 0), 100) / 100 } : nil
        if fields.count == 4 && !fields[3].isEmpty && value == nil { return nil }
        switch state {
        case 0, 3: return ProgressReading(.indeterminate, phase: Self.phase)
        case 1: return ProgressReading(.fraction(value ?? 0), phase: Self.phase)
        case 2: return ProgressReading(.error(value), phase: Self.phase, message: "error")
        case 4: return ProgressReading(.paused(value), phase: Self.phase, message: "paused")
        default: return nil
        }
    }
}
