/// Where the daemon's state goes. The journal recorder writes every transition through it
/// before replying, and other changes at most once a second; ProgressState implements
/// it on files. The model only defines the shape.
public protocol TaskJournal: AnyObject {
    /// Writes these records and removals durably before returning; throws StorageFull or
    /// StorageFailed, naming the path and the reason, when they are not on the disk, and
    /// then keeps nothing of them.
    func write(_ records: [TaskRecord], removed: [String]) throws(ProgressError)
    /// Writes every current record afresh (a compaction), throwing as `write` does: after a
    /// failed write, the state on the disk is whole again once this succeeds.
    func rewrite() throws(ProgressError)
    /// Where to read every current record when the journal rewrites itself in full, and
    /// how many there are (cheaply: asked on every write).
    func attach(recordsSource: @escaping () -> [TaskRecord], recordCount: @escaping () -> Int)
}
