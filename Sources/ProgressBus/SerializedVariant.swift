import CGLib
import ProgressModel

/// Builds the dictionaries of a large reply straight in GVariant's serialized form (the
/// format of the GVariant specification: values aligned to their size, containers of
/// variable-size children followed by a table of framing offsets), into one buffer,
/// instead of as a tree of a million small GVariants that GLib would allocate, serialize
/// and free one by one. A test compares every byte with what GLib's own builder makes.
///
/// Every container written here starts at an offset that is a multiple of its alignment,
/// so aligning within the buffer is aligning within the container.
public final class SerializedVariant {
    /// Appended to inside the callers' closures (`array`'s elements, `entry`'s value), where
    /// a checked access would be checked at run time on every append; nothing outside this
    /// class writes it, and each method writes it through one access at a time.
    @exclusivity(unchecked) public private(set) var bytes: [UInt8] = []
    /// The end offsets of the arrays being written, the innermost's last: one buffer for
    /// all of them, where an array of each task's 26 would be allocated and grown per task.
    @exclusivity(unchecked) private var ends: [Int] = []

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Makes room for `capacity` bytes in all, at once rather than by doubling as it grows.
    public func reserveCapacity(_ capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// The result as a GVariant of `type` (normal form, so trusted); floating.
    public func make(_ type: String) -> OpaquePointer {
        // The GBytes holds the buffer itself (a reference to the array's storage, which
        // nothing writes while it is shared), not a copy of a reply of megabytes.
        let kept = KeptBytes(bytes)
        let owner = Unmanaged.passRetained(kept).toOpaque()
        let data = kept.bytes.withUnsafeBytes { buffer in
            g_bytes_new_with_free_func(buffer.baseAddress, gsize(buffer.count), { owner in
                Unmanaged<KeptBytes>.fromOpaque(owner!).release()
            }, owner)
        }
        defer { g_bytes_unref(data) }
        // The type string must outlive the call: a Swift string's C form lasts only for the call it is passed to.
        return type.withCString { g_variant_new_from_bytes(shim_variant_type($0), data, 1) }
    }

    /// An array of variable-size elements, each aligned to `alignment`, then their end offsets.
    public func array(alignment: Int, _ elements: (_ element: (() -> Void) -> Void) -> Void) {
        pad(to: alignment)
        let start = bytes.count, first = ends.count
        elements { write in
            pad(to: alignment)
            write()
            ends.append(bytes.count - start)
        }
        appendOffsets(from: first, containerStart: start)
    }

    /// As `array`, bounded for a reply: an element that would take the buffer past
    /// `maxBytes` (with every framing offset counted at its widest) is taken back, and
    /// `element` returns false; the caller stops there.
    public func boundedArray(alignment: Int, maxBytes: Int, _ elements: (_ element: (() -> Void) -> Bool) -> Void) {
        let array = openArray(alignment: alignment)
        elements { write in element(of: array, maxBytes: maxBytes, write) }
        close(array)
    }

    /// An array that stays open between calls, for a reply written a slice at a time:
    /// `openArray`, then `element` for each element, then `close`, with nothing else written
    /// into the buffer in between.
    public struct OpenArray {
        fileprivate let alignment: Int
        fileprivate let start: Int
        fileprivate let first: Int
    }

    public func openArray(alignment: Int) -> OpenArray {
        pad(to: alignment)
        return OpenArray(alignment: alignment, start: bytes.count, first: ends.count)
    }

    /// One element of `array`, bounded as `boundedArray`'s: false (and nothing written) when
    /// it would take the buffer past `maxBytes`.
    public func element(of array: OpenArray, maxBytes: Int, _ write: () -> Void) -> Bool {
        let before = bytes.count
        pad(to: array.alignment)
        write()
        guard bytes.count + 8 * (ends.count - array.first + 1) <= maxBytes else {
            bytes.removeSubrange(before...)
            return false
        }
        ends.append(bytes.count - array.start)
        return true
    }

    public func close(_ array: OpenArray) {
        appendOffsets(from: array.first, containerStart: array.start)
    }

    /// A dict entry `{sX}`: the key, the value at its alignment, and the offset of the
    /// key's end (the one variable-size member that is not last).
    public func entry(key: String, valueAlignment: Int, _ value: () -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: key.utf8)
        bytes.append(0)
        let keyEnd = bytes.count - start
        pad(to: valueAlignment)
        value()
        appendOffset(keyEnd, count: 1, containerStart: start)
    }

    /// A string: its bytes and a zero byte.
    public func string(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// A variant: the value, a zero byte, its type.
    public func variant(_ value: PropertyValue) {
        let type: UInt8
        switch value {
        case .string(let text):
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
            type = UInt8(ascii: "s")
        case .bool(let flag):
            bytes.append(flag ? 1 : 0)
            type = UInt8(ascii: "b")
        case .double(let number):
            withUnsafeBytes(of: number) { bytes.append(contentsOf: $0) }
            type = UInt8(ascii: "d")
        case .uint64(let number):
            withUnsafeBytes(of: number) { bytes.append(contentsOf: $0) }
            type = UInt8(ascii: "t")
        case .int64(let number):
            withUnsafeBytes(of: number) { bytes.append(contentsOf: $0) }
            type = UInt8(ascii: "x")
        }
        bytes.append(0)
        bytes.append(type)
    }

    /// An `a{sv}` of these entries.
    public func vardict(_ entries: [(key: String, value: PropertyValue)]) {
        array(alignment: 8) { element in
            for (key, value) in entries { element { self.entry(key: key, valueAlignment: 8) { self.variant(value) } } }
        }
    }

    /// Byte by byte, at most seven: a repeated element appends through the generic path.
    /// An alignment is a power of two, so the remainder is a mask, not a division.
    private func pad(to alignment: Int) {
        assert(alignment.nonzeroBitCount == 1, "an alignment is a power of two")
        let padding = (alignment - bytes.count & (alignment - 1)) & (alignment - 1)
        if padding > 0 { bytes.append(contentsOf: repeatElement(0, count: padding)) }
    }

    /// The framing offsets of the array that started at `containerStart` (its ends from
    /// `first` on), each as wide as the container's total size needs (1, 2, 4 or 8 bytes),
    /// little-endian as the host is: the rule of gvs_calculate_total_size.
    private func appendOffsets(from first: Int, containerStart: Int) {
        guard ends.count > first else { return }
        let width = offsetWidth(body: bytes.count - containerStart, offsets: ends.count - first)
        for index in first..<ends.count { append(ends[index], width: width) }
        ends.removeSubrange(first...)
    }

    /// One entry's one offset, without an array for it: a Snapshot has one per property.
    private func appendOffset(_ offset: Int, count: Int, containerStart: Int) {
        append(offset, width: offsetWidth(body: bytes.count - containerStart, offsets: count))
    }

    private func offsetWidth(body: Int, offsets: Int) -> Int {
        if body + offsets <= 0xFF { 1 }
        else if body + 2 * offsets <= 0xFFFF { 2 }
        else if body + 4 * offsets <= 0xFFFF_FFFF { 4 }
        else { 8 }
    }

    /// A raw buffer appends with one copy; a slice of one goes through the generic path.
    private func append(_ offset: Int, width: Int) {
        var value = UInt64(offset).littleEndian
        withUnsafeBytes(of: &value) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<width])) }
    }
}

/// A finished buffer, kept alive by the GBytes of the GVariant made from it (GLib releases
/// it from whichever thread drops the value last).
private final class KeptBytes: Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
