import CGLib

/// A value that only the thread which made it may use: the program's one thread, which runs
/// the GLib main loop. It is how a program keeps state that is not Sendable (ICU's
/// formatters, caches) in a place Swift requires to be, such as a static property.
///
/// `@unchecked Sendable` is safe here because the value can be reached only through `value`,
/// which stops the program when any other thread asks for it: the value is never shared.
public final class ThreadBound<Value>: @unchecked Sendable {
    private let owner: UnsafeMutablePointer<GThread>
    private let stored: Value

    public init(_ value: Value) {
        owner = g_thread_self()
        stored = value
    }

    public var value: Value {
        precondition(g_thread_self() == owner, "\(Value.self) used off the thread that made it")
        return stored
    }
}
