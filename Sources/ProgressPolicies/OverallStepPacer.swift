/// When a subscriber that shows the overall progress at a few fixed resolutions (a ring of
/// 41 device pixels, a whole percent) is told of it: when what it shows would change, and
/// never more than once an interval. A panel that draws a 16-pixel ring from the manager's
/// Overall gets ten signals a second while 100 tasks move, though its ring moves a pixel
/// every few seconds; each signal wakes the compositor's main loop. With steps, a move
/// inside one step of every resolution is not sent, since it would show nothing new.
///
/// The fraction's step in a resolution of `n` is `floor(fraction × n)`; a subscriber that
/// rounds (a ring's pixels) asks for twice its resolution. Anything else about the overall
/// (its state, the live count) is the `Shape`: any change of it is sent. What is sent is
/// always the overall as it is when the signal goes, so the last value of a step is never
/// lost: a later move that stays in the same step shows the same on the subscriber's side.
public struct OverallStepPacer<Shape: Equatable & Sendable>: Sendable {
    /// What the subscriber shows: the fraction's step at each resolution, and the shape.
    public struct Look: Equatable, Sendable {
        public let steps: [Int]
        public let shape: Shape
    }

    public enum Decision: Equatable, Sendable {
        /// Send the overall now, then call `sent`.
        case send
        /// A change waits for the interval: `consider` the overall again at this time.
        case hold(until: Int64)
        /// Nothing the subscriber shows changed, or a signal already waits.
        case none
    }

    /// Resolutions, each the number of steps from 0 to 1.
    public let resolutions: [Int]
    public let intervalMicros: Int64
    private var sentLook: Look?
    private var sentAt: Int64?
    public private(set) var heldUntil: Int64?

    public init(resolutions: [Int], intervalMicros: Int64) {
        precondition(!resolutions.isEmpty && resolutions.allSatisfy { $0 > 0 }, "resolutions must be positive")
        self.resolutions = resolutions
        self.intervalMicros = intervalMicros
    }

    public func look(fraction: Double, shape: Shape) -> Look {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        // A tiny allowance, so that 0.29 (stored as 0.28999…) is the 29th percent.
        return Look(steps: resolutions.map { Int((clamped * Double($0) + 1e-9).rounded(.down)) }, shape: shape)
    }

    /// The overall now looks like `look`: send it, hold it, or nothing.
    public mutating func consider(_ look: Look, now: Int64) -> Decision {
        if look == sentLook {
            // Back to what the subscriber shows: a held signal would tell it nothing.
            heldUntil = nil
            return .none
        }
        if let heldUntil {
            if now < heldUntil { return .none }
            // Due (its timer fired, or the subscriber could not be sent to then): decide anew.
            self.heldUntil = nil
        }
        guard let sentAt, now - sentAt < intervalMicros else { return .send }
        let until = sentAt + intervalMicros
        heldUntil = until
        return .hold(until: until)
    }

    /// The overall went out looking like `look`.
    public mutating func sent(_ look: Look, now: Int64) {
        sentLook = look
        sentAt = now
        heldUntil = nil
    }
}
