import ProgressModel

/// Back-pressure on the signals sent to each subscriber connection (issue 12: 16
/// subscriptions asking for Changed every 0.1 s over 100 tasks pushed 13 MB/s at a
/// process that never read, and dbus-daemon, which has no per-peer queue limit worth the
/// name on a session bus, grew from 78 to 599 MB). Two rules, per connection, over all
/// its subscriptions:
/// - at most `signalsPerSecond` Changed signals a second (a token bucket with a second's
///   worth of burst); more wait, merged per task, and go out as tokens come back, so the
///   last value is always delivered;
/// - a connection that does not answer a Ping within `answerMicros` is not reading: it
///   gets nothing more (its changes wait, merged, bounded by the number of tasks) until it
///   answers, and it is pinged again at most every `answerMicros`.
/// ProgressDaemon's SubscriptionOutput sends the pings and calls back; this type only keeps the books.
public struct SubscriberPacing: Sendable {
    public let signalsPerSecond: Int
    public let answerMicros: Int64

    struct Peer: Sendable {
        var tokens: Double
        var refilled: Int64
        /// When the outstanding ping was sent; nil when none is out.
        var pingSent: Int64?
        var lastAnswer: Int64
        /// Set when a ping went unanswered for `answerMicros`; only an answer clears it.
        var silent = false
    }

    private var peers: [ClientID: Peer] = [:]

    public init(signalsPerSecond: Int, answerMicros: Int64) {
        self.signalsPerSecond = max(1, signalsPerSecond)
        self.answerMicros = max(1, answerMicros)
    }

    private mutating func peer(_ owner: ClientID, now: Int64) -> Peer {
        var peer = peers[owner] ?? Peer(tokens: Double(signalsPerSecond), refilled: now, pingSent: nil, lastAnswer: now)
        if let sent = peer.pingSent, now - sent >= answerMicros { peer.silent = true }
        return peer
    }

    /// Whether one more signal may go to `owner` now; takes a token if so.
    public mutating func take(_ owner: ClientID, now: Int64) -> Bool {
        var peer = peer(owner, now: now)
        defer { peers[owner] = peer }
        if peer.silent { return false }
        let rate = Double(signalsPerSecond)
        peer.tokens = min(rate, peer.tokens + Double(now - peer.refilled) * rate / 1e6)
        peer.refilled = now
        guard peer.tokens >= 1 else { return false }
        peer.tokens -= 1
        return true
    }

    /// Whether `owner` has not answered its ping in time: it gets nothing until it does.
    public mutating func isSilent(_ owner: ClientID, now: Int64) -> Bool {
        let peer = peer(owner, now: now)
        peers[owner] = peer
        return peer.silent
    }

    /// When a signal that waits for `owner` may go: the next token, or nil while silent.
    public mutating func nextChance(_ owner: ClientID, now: Int64) -> Int64? {
        let peer = peer(owner, now: now)
        peers[owner] = peer
        if peer.silent { return nil }
        let missing = max(0, 1 - peer.tokens)
        return peer.refilled + Int64((missing * 1e6 / Double(signalsPerSecond)).rounded(.up))
    }

    /// Whether to ping `owner` now: no ping is out, and it is silent or its last answer is
    /// older than `answerMicros`. Records the ping as sent.
    public mutating func shouldPing(_ owner: ClientID, now: Int64) -> Bool {
        var peer = peer(owner, now: now)
        guard peer.pingSent == nil, peer.silent || now - peer.lastAnswer >= answerMicros else { return false }
        peer.pingSent = now
        peers[owner] = peer
        return true
    }

    /// The answer to a ping. Returns whether the peer had been silent (its waiting
    /// changes can go now).
    public mutating func answered(_ owner: ClientID, now: Int64) -> Bool {
        guard var peer = peers[owner] else { return false }
        let wasSilent = peer.silent
        peer = Peer(tokens: peer.tokens, refilled: peer.refilled, pingSent: nil, lastAnswer: now)
        peers[owner] = peer
        return wasSilent
    }

    /// A ping that failed or timed out: the peer stays silent and is pinged again.
    public mutating func pingFailed(_ owner: ClientID) {
        peers[owner]?.pingSent = nil
        peers[owner]?.silent = true
    }

    public mutating func forget(_ owner: ClientID) { peers[owner] = nil }
}
