import ProgressModel

/// Where the daemon's state goes. The bus adapter writes every transition through it
/// before replying, and other changes at most once a second; ProgressState implements
/// it on files. Core only defines the shape.
public protocol TaskJournal: AnyObject {
    /// Writes these records and removals durably before returning.
    func write(_ records: [TaskRecord], removed: [String])
    /// Where to read every current record when the journal rewrites itself in full, and
    /// how many there are (cheaply: asked on every write).
    func attach(recordsSource: @escaping () -> [TaskRecord], recordCount: @escaping () -> Int)
}
