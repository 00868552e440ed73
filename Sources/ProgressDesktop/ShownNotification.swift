/// What the notification server shows for one task of NotificationOutput, or for one
/// app's burst summary.
struct ShownNotification {
    var id: UInt32 = 0
    var inFlight = false
    /// The task changed while a call was in flight: send its newest state after.
    var again = false
    var lastSent: Int64 = .min
    var outcome = false
    /// The app whose burst this outcome began: its summary replaces this notification.
    var burstApp: String?
}
