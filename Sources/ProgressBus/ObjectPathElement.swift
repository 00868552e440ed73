import CGLib
import ProgressModel

/// One element of an object path made from any text, by GLib's escape
/// (`g_dbus_escape_object_path`): ASCII letters and digits stand for themselves, every other
/// byte of the UTF-8 form is written `_` and two lowercase hex digits (the escape systemd
/// uses for its bus paths too). Task paths and LauncherEntry paths are made this way.
public enum ObjectPathElement {
    /// The element for `text` ("_" for the empty text).
    public static func escape(_ text: String) -> String {
        let escaped = g_dbus_escape_object_path(text)!
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    /// The text an element was escaped from; nil for an element `escape` never writes (an
    /// escaped letter or digit, uppercase hex, a truncated escape, bytes that are not UTF-8),
    /// so that each text has exactly one element and each element at most one text.
    public static func unescape(_ element: String) -> String? {
        guard let bytes = g_dbus_unescape_object_path(element) else { return nil }
        defer { g_free(bytes) }
        // GLib also reads uppercase hex; the element must be the one `escape` writes.
        guard let text = String(validatingCString: UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)),
              escape(text) == element else { return nil }
        return text
    }
}

extension TaskName {
    /// The last element of the task's object path.
    public var pathElement: String { ObjectPathElement.escape(text) }

    /// The inverse of `pathElement`; nil for an element no name escapes to.
    public init?(pathElement: String, limits: Limits = Limits()) {
        guard let text = ObjectPathElement.unescape(pathElement), let name = try? TaskName(text, limits: limits) else {
            return nil
        }
        self = name
    }
}
