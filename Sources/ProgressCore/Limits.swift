/// Every limit the daemon enforces, in one place, each with the reason it exists.
/// `dbus/org.progressd.Progress1.xml` documents the same numbers for clients; a test keeps them equal.
public struct Limits: Sendable, Equatable {
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
    /// One runaway client must not exhaust the daemon for everyone else on the session.
    public var maxTasksPerCaller = 1_000
    /// An upper bound on the daemon's memory (an idle task costs about 1 KB).
    public var maxTasks = 100_000
    /// PropertiesChanged signals per second per task: 10 is smooth for a bar and
    /// far below what would load the bus when a job updates on every block it copies.
    public var maxSignalsPerSecond = 10
    /// The range a daemon flag may set for `maxSignalsPerSecond`: at least one signal a second
    /// keeps watchers live; more than 1000 would no longer be coalescing.
    public static let signalRateRange = 1...1_000

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
    /// Subscriptions a connection may hold: a screen reader and a panel need one each.
    public var maxSubscriptionsPerCaller = 16
    /// Subscriptions in all: each costs work on every change of the tasks it covers.
    public var maxSubscriptions = 1_024
    /// Entries in one UpdateMany: a batch is for moving many updates in one message, and a
    /// bounded one keeps a single call from holding the daemon for long.
    public var maxBatchEntries = 4_096
    /// Removals that Changes remembers: a poller that missed more than this gets every task
    /// again (reset), which costs it one full read; 10,000 names are about a megabyte.
    public var maxRemovalsKept = 10_000
    /// Live KDE job views (JobViewServer.requestView) one connection may hold: a KDE
    /// application runs a few jobs at once (a Dolphin copy of many files is one job), and a
    /// runaway client must not fill the store every application shares. All KDE jobs also
    /// count together against `maxTasksPerCaller`, charged to the KDE bridge.
    public var maxJobViewsPerConnection = 100
    /// A child's weight relative to its siblings.
    public static let weightRange = 0.0...1_000_000.0

    public init() {}
}
