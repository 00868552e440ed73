import CCairo

#if canImport(Glibc)
import Glibc
#endif

/// The frames of an animated progress picture, and APNG around them.
enum Animation {
    /// The value at time `t` (0 to 1) of a move from 0 to 1.
    static func curve(_ easing: RenderSpec.Easing, bounciness: Double, at t: Double) -> Double {
        switch easing {
        case .easeOut:
            return 1 - pow(1 - t, 3)
        case .spring:
            // A damped oscillation: more bounciness, more rings; settled by the end.
            let rings = 0.5 + bounciness / 8
            return t >= 1 ? 1 : 1 - exp(-6 * t) * cos(2 * .pi * rings * t)
        }
    }

    /// One spec per frame.
    static func frames(of spec: RenderSpec) -> [RenderSpec] {
        let still = spec.reduceMotion || !spec.theme.allowsMotion
        let count = still ? 1 : spec.frames
        return (0..<count).map { index in
            var frame = spec
            frame.format = .png
            if let from = spec.fromFraction {
                let t = count == 1 ? 1 : Double(index) / Double(count - 1)
                let moved = from + (spec.fraction - from) * curve(spec.easing, bounciness: spec.bounciness, at: t)
                frame.fraction = min(1, max(0, moved))
            } else if !still {
                // A loop: frame n would be frame 0 again, so it is left out.
                frame.phase = Double(index) / Double(count)
            }
            return frame
        }
    }

    /// APNG from PNG frames of one size: the first frame's IDAT is the default image, the
    /// others go in fdAT chunks, each frame with its fcTL, numbered in one sequence.
    static func assemble(_ frames: [[UInt8]], width: Int, height: Int, delayMilliseconds: Int, loops: Bool) -> [UInt8] {
        var output: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var sequence: UInt32 = 0
        func chunk(_ type: String, _ data: [UInt8]) {
            let typeBytes = Array(type.utf8)
            output += bigEndian(UInt32(data.count)) + typeBytes + data
            let crc = (typeBytes + data).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            output += bigEndian(UInt32(crc))
        }
        func frameControl() {
            chunk("fcTL", bigEndian(sequence) + bigEndian(UInt32(width)) + bigEndian(UInt32(height))
                  + bigEndian(0) + bigEndian(0) + bigEndian16(UInt16(min(delayMilliseconds, 65_535)))
                  + bigEndian16(1_000) + [0, 0])
            sequence += 1
        }
        for (index, frame) in frames.enumerated() {
            let chunks = parse(frame)
            if index == 0 {
                for (type, data) in chunks where type != "IDAT" && type != "IEND" {
                    chunk(type, data)
                    if type == "IHDR" { chunk("acTL", bigEndian(UInt32(frames.count)) + bigEndian(loops ? 0 : 1)) }
                }
                frameControl()
                for (type, data) in chunks where type == "IDAT" { chunk("IDAT", data) }
            } else {
                frameControl()
                for (type, data) in chunks where type == "IDAT" {
                    chunk("fdAT", bigEndian(sequence) + data)
                    sequence += 1
                }
            }
        }
        chunk("IEND", [])
        return output
    }

    /// The chunks of a PNG we encoded ourselves.
    static func parse(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append((type, Array(png[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return chunks
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
    private static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
