/// When each property of one task last changed, for the properties that changed after the
/// task was created; any other property last changed with the task's creation.
///
/// One word an entry, in the order the properties first changed: the property's index in
/// the top 5 bits (TaskProperties has 32), the change's sequence number in the other 59.
/// Sequence numbers start from the clock's microseconds, about 2^51 in 2026 and one more
/// a change, so 59 bits last thousands of years. A task that only stalled keeps one entry
/// (16 bytes with its array's header, against 240 for a word per property), and the busy
/// properties of a task updated many times a second are found in a few words.
package struct PropertyStamps: Sendable {
    private static let indexShift: UInt64 = 59
    private static let sequenceMask: UInt64 = (1 << indexShift) - 1
    private var entries: [UInt64] = []

    package init() {}

    /// Notes that `properties` changed with the change numbered `sequence`.
    package mutating func stamp(_ properties: TaskProperties, at sequence: UInt64) {
        precondition(sequence <= Self.sequenceMask, "sequence \(sequence) does not fit in \(Self.indexShift) bits")
        var unstamped = properties.rawValue
        for position in entries.indices where unstamped != 0 {
            let index = entries[position] >> Self.indexShift
            let bit = UInt32(1) << UInt32(index)
            if unstamped & bit != 0 {
                entries[position] = index << Self.indexShift | sequence
                unstamped &= ~bit
            }
        }
        while unstamped != 0 {
            entries.append(UInt64(unstamped.trailingZeroBitCount) << Self.indexShift | sequence)
            unstamped &= unstamped - 1
        }
    }

    /// The properties whose last change is numbered after `since`.
    package func changed(after since: UInt64) -> TaskProperties {
        var properties = TaskProperties()
        for entry in entries where entry & Self.sequenceMask > since {
            properties.formUnion(TaskProperties(index: Int(entry >> Self.indexShift)))
        }
        return properties
    }
}
