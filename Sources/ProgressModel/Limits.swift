/// Every limit the daemon enforces, in one place, each with the reason it exists.
/// `dbus/org.progressd.Progress1.xml` documents the same numbers for clients; a test keeps them equal.
public struct Limits: Sendable, Equatable {
    /// The announcement budget's default pace: one sentence a second.
    public static let defaultAnnouncementIntervalMicros: Int64 = 1_000_000
    /// Task names become object paths (escaped up to 3x) and appear in every signal;
    /// 200 bytes is more than any job title needs as an identifier.
    public var maxNameBytes = 200
    /// A title is one line in a panel or a sentence for a screen reader.
    public var maxTitleBytes = 1_024
    /// A message (such as a failure reason) may quote a path or an error text.
    public var maxMessageBytes = 4_096
    /// A unit is one word (`bytes`, `files`, `frames`).
    public var maxUnitBytes = 64
    /// A desktop file id is at most 255 bytes (a file name).
    public var maxAppIdBytes = 255
    /// Tasks one process (a host process, however many connections it opens) or one
    /// sandboxed app (all its processes) may have started and not yet removed: one runaway
    /// client must not exhaust the daemon for everyone else on the session, so each holds at
    /// most 1% of `maxTasks` and a job can always start. A task costs its starter until it
    /// is removed, not until the connection closes (lease tasks outlive their connection).
    public var maxTasksPerCaller = 1_000
    /// An upper bound on the daemon's memory (an idle task costs about 1 KB).
    public var maxTasks = 100_000
    /// PropertiesChanged signals per second per task: 10 is smooth for a bar and
    /// far below what would load the bus when a job updates on every block it copies.
    public var maxSignalsPerSecond = 10
    /// The range a daemon flag may set for `maxSignalsPerSecond`: at least one signal a second
    /// keeps watchers live; more than 1000 would no longer be coalescing.
    public static let signalRateRange = 1...1_000
    /// The least time between two signals of one task, from `maxSignalsPerSecond`.
    public var signalIntervalMicros: Int64 { 1_000_000 / Int64(max(1, maxSignalsPerSecond)) }

    /// Without an update for this long a task shows Stalled: long enough for a slow disk,
    /// short enough that a frozen job is noticed while someone still cares.
    public var defaultStallSeconds: UInt32 = 30
    /// Without an update for this long a `lease` task fails: a job that stopped reporting
    /// for ten minutes has almost certainly died.
    public var defaultLeaseSeconds: UInt32 = 600
    /// Outcomes stay visible this long so pollers and screen readers can see them.
    public var defaultLingerSeconds: UInt32 = 60
    /// The range a client may give each of those: a day at most, so no task outlives its
    /// session by accident. Linger may be 0 (remove at once).
    public static let durationRange: ClosedRange<UInt32> = 1...86_400
    /// Parents nest at most this deep: deeper trees are a client bug, and walking the
    /// ancestors on each update must stay cheap.
    public var maxTreeDepth = 8
    /// Subscriptions one process (or one sandboxed app) may hold: a screen reader and a
    /// panel need one each, and a shell that hosts both a few more. Counted per process, not
    /// per connection, so that 64 connections of one process can take 1/64 of
    /// `maxSubscriptions` and no more, and a screen reader can always subscribe.
    public var maxSubscriptionsPerCaller = 16
    /// Subscriptions in all: each costs work on every change of the tasks it covers.
    public var maxSubscriptions = 1_024
    /// Entries in one UpdateMany: a batch is for moving many updates in one message, and a
    /// bounded one keeps a single call from holding the daemon for long.
    public var maxBatchEntries = 4_096
    /// Bytes in one reply (Snapshot, SnapshotPage, GetManagedObjects, List, Describe). D-Bus
    /// carries no array over 64 MiB and no message over 128 MiB (the specification's limits,
    /// which dbus-daemon enforces by dropping the sender's connection); half the array limit
    /// leaves room for the header and for the wire format being larger than GVariant's, and a
    /// reply that size already holds the bus for others for a while. A bigger read is refused
    /// with LimitExceeded and done in pages (SnapshotPage).
    public var maxReplyBytes = 32 << 20
    /// The range a daemon flag may set for `maxReplyBytes`: a page must still hold the largest
    /// task (about 20 KB with a 1 KB title and 4 KB message in three texts).
    public static let replyBytesRange = 65_536...(64 << 20)
    /// Values in one reply (Snapshot, SnapshotPage, GetManagedObjects, List, Changes), each
    /// container, dictionary entry, variant and basic value counted (`SlicedReply.Element.values`): GDBus
    /// converts a reply to the wire format value by value, about 0.15 µs each here, while it
    /// holds its connection's lock, and every other client's call waits for that lock to reach
    /// the main loop. 131,072 values are a List of 100,000 names or a Snapshot of 1,224 tasks,
    /// about 20 ms (a Snapshot of 41,000 tasks held everyone back for 0.7 s). A bigger read is
    /// refused with LimitExceeded and done in pages (SnapshotPage).
    public var maxReplyValues = 1 << 17
    /// The range a daemon flag may set for `maxReplyValues`: a page must still hold a few tasks
    /// (107 values each).
    public static let replyValuesRange = 4_096...(1 << 30)
    /// Tasks in one SnapshotPage: small enough that a page is quick to build and send, large
    /// enough that 100,000 tasks take only 100 round trips. Fewer when `maxReplyValues` is lower.
    public var maxPageTasks = 1_000
    /// The most the daemon reads of the snapshot at start: 100,000 tasks of ordinary size
    /// are about 100 MB. A bigger snapshot is damage (a runaway writer); it is moved aside
    /// rather than read, since reading it would cost the session's start its time and
    /// memory. The journal has no such limit: it is read as a stream of records, each at
    /// most `maxRecordBytes`, so its records survive whatever padding follows them.
    public var maxStateFileBytes = 512 << 20
    /// A journal line longer than this is damage, never decoded: the largest record (a 1 KB
    /// title and 4 KB message, each escaped up to six times in JSON) is about 40 KB.
    public var maxRecordBytes = 256 << 10
    /// Announcements per listener (the broadcast, each subscription unless it asks for its
    /// own pace) at most one a second across all tasks: about what a screen reader can say;
    /// more wait and are merged into one sentence.
    public var announcementIntervalMicros: Int64 = Limits.defaultAnnouncementIntervalMicros
    /// The paces a subscription may ask for with "announcements-per-second".
    public static let announcementRateRange = 0.01...10.0
    /// Changed signals a subscriber connection gets a second over all its subscriptions:
    /// a panel showing 40 tasks at 10 a second. More wait, merged per task, so the last
    /// value is still delivered; this bounds what one connection costs the bus (issue 12:
    /// 16 subscriptions asked for 16,000 a second, 13 MB/s).
    public var maxSubscriberSignalsPerSecond = 400
    /// A subscriber that has not answered a Peer.Ping for this long is not reading (stopped
    /// or stuck): its changes wait, merged, until it answers, so the bus does not queue
    /// for it without bound. Every D-Bus library answers a Ping in milliseconds.
    public var subscriberAnswerMicros: Int64 = 3_000_000
    /// Removals that Changes remembers: a poller that missed more than this gets every task
    /// again (reset), which costs it one full read; 10,000 names are about a megabyte.
    public var maxRemovalsKept = 10_000
    /// Live KDE job views (JobViewServer.requestView) one process (or sandboxed app) may
    /// hold: a KDE application runs a few jobs at once (a Dolphin copy of many files is one
    /// job). Counted per process, not per connection, so that a process opening many
    /// connections can not take more; each view's job is also a task of that process,
    /// counted against `maxTasksPerCaller`, so one process can not fill the store that
    /// every other application's jobs need.
    public var maxJobViewsPerCaller = 100
    /// Applications one process (or sandboxed app) may report through LauncherEntry: an
    /// application reports its own icon, a dock proxy such as Plasma's a few dozen. An entry
    /// is kept from its first Update (libunity sends progress before progress-visible), so
    /// without a cap one sender's distinct URIs would each cost memory.
    public var maxLauncherEntriesPerCaller = 100
    /// How long a transition's reply may wait for its group to be synced while calls keep
    /// arriving: 5 ms is well under what a person notices, and enough to gather a burst.
    public var groupCommitMaxDelayMicros: Int64 = 5_000
    /// How often a daemon whose state directory refused a write tries to rewrite it in full
    /// (and so to take writes again): a compaction costs a write of every task, and a disk
    /// freed by a person is seen within a couple of seconds.
    public var storageRetryMicros: Int64 = 2_000_000
    /// A child's weight relative to its siblings.
    public static let weightRange = 0.0...1_000_000.0

    public init() {}
}
