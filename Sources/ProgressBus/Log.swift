import CGLib

/// Structured logging through GLib, so that under systemd the journal gets fields
/// (priority, domain) and on a terminal stderr gets a readable line.
public enum Log {
    public static func notice(_ message: String) { write(G_LOG_LEVEL_MESSAGE, priority: "5", message) }
    public static func warning(_ message: String) { write(G_LOG_LEVEL_WARNING, priority: "4", message) }
    /// An error the daemon survives or exits on; logged at warning level because GLib's
    /// error level aborts the process.
    public static func error(_ message: String) { write(G_LOG_LEVEL_WARNING, priority: "3", message) }

    private static func write(_ level: GLogLevelFlags, priority: String, _ message: String) {
        "GLIB_DOMAIN".withCString { domainKey in
            "progressd".withCString { domain in
                "PRIORITY".withCString { priorityKey in
                    priority.withCString { priorityValue in
                        "MESSAGE".withCString { messageKey in
                            message.withCString { messageValue in
                                var fields = [
                                    GLogField(key: domainKey, value: domain, length: -1),
                                    GLogField(key: priorityKey, value: priorityValue, length: -1),
                                    GLogField(key: messageKey, value: messageValue, length: -1),
                                ]
                                g_log_structured_array(level, &fields, gsize(fields.count))
                            }
                        }
                    }
                }
            }
        }
    }
}
