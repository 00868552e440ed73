/// Whether the overall progress is news to a subscriber that shows it at a few fixed
/// resolutions (a ring of 41 device pixels, a whole percent): only when what it shows would
/// change. A panel that draws a 16-pixel ring from the manager's Overall gets ten signals a
/// second while 100 tasks move, though its ring moves a pixel every few seconds; each
/// signal wakes the compositor's main loop. With steps, a move inside one step of every
/// resolution is not sent, since it would show nothing new.
///
/// The fraction's step in a resolution of `n` is `floor(fraction × n)`; a subscriber that
/// rounds (a ring's pixels) asks for twice its resolution. Anything else about the overall
/// (its state, the live count) is the `Shape`: any change of it is news. How often the
/// overall is looked at is the caller's pace (SubscriptionOutput: a signal interval); what
/// is sent is the overall as it is then, so the last value of a step is never lost: a later
/// move that stays in the same step shows the same on the subscriber's side.
public struct OverallStepFilter<Shape: Equatable & Sendable>: Sendable {
    /// What the subscriber shows: the fraction's step at each resolution, and the shape.
    public struct Look: Equatable, Sendable {
        public let steps: [Int]
        public let shape: Shape
    }

    /// Resolutions, each the number of steps from 0 to 1.
    public let resolutions: [Int]
    /// What the subscriber was last sent; nil before the first, which is always news.
    public private(set) var sent: Look?

    public init(resolutions: [Int]) {
        precondition(!resolutions.isEmpty && resolutions.allSatisfy { $0 > 0 }, "resolutions must be positive")
        self.resolutions = resolutions
    }

    public func look(fraction: Double, shape: Shape) -> Look {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        // A tiny allowance, so that 0.29 (stored as 0.28999…) is the 29th percent.
        return Look(steps: resolutions.map { Int((clamped * Double($0) + 1e-9).rounded(.down)) }, shape: shape)
    }

    /// Whether the overall, looking like `look`, is news; if so it counts as sent.
    public mutating func isNews(_ look: Look) -> Bool {
        guard look != sent else { return false }
        sent = look
        return true
    }
}
