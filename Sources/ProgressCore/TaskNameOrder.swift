import ProgressModel

/// Task names in the byte order of their UTF-8, kept as tasks come and go, so that a read
/// in name order (List, Snapshot, a SnapshotPage) starts where it is asked to and walks
/// only what it returns, whatever the table's size.
///
/// The names live in sorted chunks of at most `maxChunk`: finding a name is two binary
/// searches, and adding or removing one moves at most a chunk's worth of names (a single
/// sorted array would move half the table, 100,000 names, for each new task).
struct TaskNameOrder {
    private var chunks: [[TaskName]] = []
    private(set) var count = 0
    /// A full chunk splits in two; small enough that an insert moves little, large enough
    /// that the chunk list stays short (200 chunks at 100,000 tasks).
    static let maxChunk = 1_024

    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    mutating func insert(_ name: TaskName) {
        guard !chunks.isEmpty else {
            chunks = [[name]]
            count = 1
            return
        }
        let chunk = chunkIndex(for: name.text)
        let position = Self.firstIndex(in: chunks[chunk]) { !Self.precedes($0.text, name.text) }
        if position < chunks[chunk].count && chunks[chunk][position].text == name.text { return }
        chunks[chunk].insert(name, at: position)
        count += 1
        if chunks[chunk].count > Self.maxChunk {
            let upper = Array(chunks[chunk][(Self.maxChunk / 2)...])
            chunks[chunk].removeSubrange((Self.maxChunk / 2)...)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    mutating func remove(_ name: TaskName) {
        guard !chunks.isEmpty else { return }
        let chunk = chunkIndex(for: name.text)
        let position = Self.firstIndex(in: chunks[chunk]) { !Self.precedes($0.text, name.text) }
        guard position < chunks[chunk].count && chunks[chunk][position].text == name.text else { return }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    }

    /// Every name, in order.
    var all: Names { Names(chunks: chunks, chunk: 0, index: 0) }

    /// The names that sort after `text` (all of them for ""), in order, found without a walk.
    func names(after text: String) -> Names {
        guard !text.isEmpty, !chunks.isEmpty else { return all }
        let chunk = chunkIndex(for: text)
        let index = Self.firstIndex(in: chunks[chunk]) { Self.precedes(text, $0.text) }
        return index < chunks[chunk].count ? Names(chunks: chunks, chunk: chunk, index: index)
            : Names(chunks: chunks, chunk: chunk + 1, index: 0)
    }

    /// The names from a position on, walked chunk by chunk. A type of its own: a joined or
    /// flat-mapped lazy sequence, iterated in another module, runs the standard library's
    /// generic iterator, which looks up type metadata for every name.
    struct Names: Sequence, IteratorProtocol {
        let chunks: [[TaskName]]
        var chunk: Int
        var index: Int

        mutating func next() -> TaskName? {
            while chunk < chunks.count {
                if index < chunks[chunk].count {
                    defer { index += 1 }
                    return chunks[chunk][index]
                }
                chunk += 1
                index = 0
            }
            return nil
        }
    }

    /// The chunk `text` belongs in: the last whose first name does not sort after it.
    private func chunkIndex(for text: String) -> Int {
        let following = Self.firstIndex(in: chunks) { Self.precedes(text, $0[0].text) }
        return max(0, following - 1)
    }

    /// The first index whose element satisfies `isAtOrAfter` (which is false, then true).
    private static func firstIndex<C: RandomAccessCollection>(
        in elements: C, where isAtOrAfter: (C.Element) -> Bool
    ) -> Int where C.Index == Int {
        var low = elements.startIndex, high = elements.endIndex
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(elements[middle]) { high = middle } else { low = middle + 1 }
        }
        return low - elements.startIndex
    }
}
