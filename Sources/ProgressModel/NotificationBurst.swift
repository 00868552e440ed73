/// The outcomes of one app's burst.
public struct NotificationBurst: Sendable, Equatable {
    /// The app id; empty for tasks without one and for the apps past `maxApps`.
    public let app: String
    public package(set) var failed = 0
    public package(set) var failedTitles: [String] = []
    public package(set) var finished = 0
    public package(set) var finishedTitles: [String] = []
    package var last: Int64

    public var count: Int { failed + finished }

    package init(app: String, last: Int64) {
        self.app = app
        self.last = last
    }
}
