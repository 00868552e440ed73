/// What the registry says assistive tools listen for (`GetRegisteredEvents`, kept current
/// by `EventListenerRegistered`/`EventListenerDeregistered`), so that progressd spends
/// nothing on events nobody hears, as GTK and Qt do.
///
/// The registry normalises event strings (`object:property-change:accessible-value`
/// becomes `Object:PropertyChange:AccessibleValue`; a listener for a whole class is
/// `Object::`). Matching here compares each of the three parts, without case, dashes or
/// underscores, an empty part matching anything, so either spelling works.
struct RegisteredEvents {
    /// (listener bus name, event string) pairs, with a count: one listener may register
    /// the same event twice and deregister it once.
    private var registrations: [Registration: Int] = [:]

    struct Registration: Hashable {
        let listener: String
        let event: String
    }

    /// Whether the list is known yet: until GetRegisteredEvents has answered, everything
    /// is sent, so that a listener that registered before progressd embedded is not missed.
    private(set) var isKnown = false

    var isEmpty: Bool { isKnown && registrations.isEmpty }

    mutating func replaceAll(_ pairs: [(listener: String, event: String)]) {
        registrations.removeAll()
        for pair in pairs { registrations[Registration(listener: pair.listener, event: pair.event), default: 0] += 1 }
        isKnown = true
    }

    mutating func add(listener: String, event: String) {
        registrations[Registration(listener: listener, event: event), default: 0] += 1
    }

    mutating func remove(listener: String, event: String) {
        let key = Registration(listener: listener, event: event)
        guard let count = registrations[key] else { return }
        registrations[key] = count > 1 ? count - 1 : nil
    }

    /// A listener left the bus: the registry drops its registrations, and so do we.
    mutating func removeListener(_ listener: String) {
        registrations = registrations.filter { $0.key.listener != listener }
    }

    mutating func forget() {
        registrations.removeAll()
        isKnown = false
    }

    /// Whether any listener wants `event`, given as `class:major:minor` in either spelling.
    func wants(_ event: String) -> Bool {
        guard isKnown else { return true }
        let wanted = Self.parts(event)
        return registrations.keys.contains { registration in
            let have = Self.parts(registration.event)
            return zip(have, wanted).allSatisfy { $0.isEmpty || $0 == $1 }
        }
    }

    /// Whether anyone listens at all: events that keep a tool's cache right (children,
    /// names, states) go out then, since libatspi applies them to its cache whatever the
    /// tool itself listens for.
    var anyListener: Bool { !isKnown || !registrations.isEmpty }

    private static func parts(_ event: String) -> [String] {
        var parts = event.split(separator: ":", omittingEmptySubsequences: false).map { part in
            String(part.lowercased().filter { $0 != "-" && $0 != "_" })
        }
        while parts.count < 3 { parts.append("") }
        return Array(parts.prefix(3))
    }
}
