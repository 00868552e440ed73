/// One progress task as the daemon keeps it.
public struct ProgressTask: Sendable {
    // The fields are laid out by size (Swift keeps declaration order): the strings, the
    // 8-byte values, then each optional's tag byte shared with the one-byte flags. Every
    // live task is one of these, so padding would be memory per task.
    public let name: TaskName
    // Client texts are kept with their bidi controls balanced (ClientText.balanced), by
    // whichever input set them, so that Title, Message and every text made of them close
    // what they open: no consumer sees an override left open.
    public package(set) var title = "" { didSet { title = ClientText.balanced(title) } }
    public package(set) var unit = "" { didSet { unit = ClientText.balanced(unit) } }
    public package(set) var message = "" { didSet { message = ClientText.balanced(message) } }
    public package(set) var appId = ""
    public package(set) var parent: TaskName?
    /// Who started the task: only it and the host may change it (`OwnerAccess`).
    public package(set) var owner: TaskOwner
    /// The process or sandboxed app charged for the task against the per-caller cap; nil
    /// for a restored task (charged to no one: its process is gone).
    package var chargedTo: ChargeKey?
    /// The connection the task belongs to: for a `caller` task, the one whose departure fails
    /// it; for a bridge's task (a KDE job view, a LauncherEntry), the client behind it, whose
    /// departure the bridge acts on. Kept in the journal with its process, so that a restart
    /// binds the task to it again (`RestoredBindings`); nil for a task restored from an older
    /// journal until its job starts it again.
    package var boundConnection: ClientID?
    package var estimator = RateEstimator()
    /// The values of the properties that keep their own (TaskPropertyDescriptor's
    /// `initial:` rows); empty, allocating nothing, for the standard table's tasks.
    var rowValues = RowValues()

    /// The determinate value. While indeterminate it is kept but not shown.
    public package(set) var storedFraction = 0.0
    public package(set) var completed: UInt64 = 0
    public package(set) var total: UInt64 = 0
    public package(set) var serial: UInt64 = 0
    public package(set) var created: Int64
    public package(set) var updated: Int64
    public package(set) var weight = 1.0
    /// Units per second when Total is known, else fraction per second; 0 while unknown.
    public package(set) var rate = 0.0
    /// -1 while unknown.
    public package(set) var secondsRemaining: Int64 = -1
    /// When the job last touched the task (monotonic), for stall and lease.
    package var lastActivity: Int64
    package var rateWindowCount = 0
    public package(set) var leaseSeconds: UInt32
    public package(set) var stallSeconds: UInt32
    public package(set) var lingerSeconds: UInt32

    /// When the task reached its outcome (monotonic), for linger.
    package var outcomeTime: Int64?
    /// The state the job set. A parent shows `paused` while a live child is paused (`state`).
    public package(set) var ownState = TaskState.running
    public package(set) var indeterminate = false
    public package(set) var ownerSaysFrequent = false
    public package(set) var detectedFrequent = false
    public package(set) var lifetime = Lifetime.lease
    /// No update for `stallSeconds` (or a child stalled, or a restored `caller` task whose
    /// job has not come back yet).
    public package(set) var stalled = false
    public package(set) var cancellable = false

    /// Start of the current one-second window (and `rateWindowCount`, the changes counted
    /// in it), to detect a task that updates faster than signals go out.
    package var rateWindowStart: Int64?
    public package(set) var pausable = false
    public package(set) var cancelRequested = false
    public package(set) var childFailure = ChildFailurePolicy.fail
    /// Set for a parent with children: its values are computed from them.
    public package(set) var hasChildren = false
    /// A live child is paused, so the parent shows paused.
    package var childPaused = false
    package var childStalled = false
    package var estimatorCountsUnits = false

    package init(
        name: TaskName, caller: ClientID, wallMicros: Int64, monotonicMicros: Int64, limits: Limits, serial: UInt64 = 0
    ) {
        self.name = name
        owner = caller.identity.owner
        chargedTo = caller.chargeKey
        created = wallMicros
        updated = wallMicros
        lastActivity = monotonicMicros
        leaseSeconds = limits.defaultLeaseSeconds
        stallSeconds = limits.defaultStallSeconds
        lingerSeconds = limits.defaultLingerSeconds
        self.serial = serial
    }

    /// The `State` property.
    public var state: TaskState { ownState == .running && childPaused ? .paused : ownState }

    public var isLive: Bool { !ownState.isOutcome }

    public var isStalled: Bool { stalled || childStalled || awaitingJob }

    /// A `caller` task restored after a restart: its old connection is gone, and it waits
    /// for its job to start it again.
    var awaitingJob: Bool { isLive && lifetime == .caller && boundConnection == nil }

    public var updatesFrequently: Bool { ownerSaysFrequent || detectedFrequent }

    /// The `Fraction` property: 0 while indeterminate, because an indeterminate task has
    /// no current value and a stale one must not be shown.
    public var fraction: Double { indeterminate ? 0 : storedFraction }

    /// The whole percent a label shows, or nil while indeterminate. Rounded down, so that
    /// 99.9 % reads 99; only a finished task reads 100.
    public var wholePercent: Int? {
        if indeterminate { return nil }
        if ownState == .finished { return 100 }
        // The small epsilon keeps 0.29 * 100 = 28.999… at 29.
        return min(99, Int((storedFraction * 100 + 1e-9).rounded(.down)))
    }

    /// The name people see: the title, or the name when there is no title.
    public var displayTitle: String { title.isEmpty ? name.text : title }

    public func value(of property: TaskProperty, describing texts: TaskDescribing) -> PropertyValue {
        TaskPropertyTable.standard.value(at: property.rawValue, of: self, describing: texts)
    }
}
