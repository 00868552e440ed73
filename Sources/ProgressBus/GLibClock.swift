import CGLib
import ProgressModel

/// The daemon's clock: GLib's monotonic and real time, the same clock GLib timers use.
public final class GLibClock: Clock {
    public init() {}
    public var monotonicMicros: Int64 { Int64(g_get_monotonic_time()) }
    public var wallMicros: Int64 { Int64(g_get_real_time()) }
}
