import CGLib

/// One signal an object sends: its interface and member, as a SignalTable declares it.
public struct InterfaceSignal: Sendable, Hashable {
    public let interface: String
    public let member: String

    public init(_ interface: String, _ member: String) {
        self.interface = interface
        self.member = member
    }
}

/// The signals of one D-Bus interface, declared beside its methods: senders take a
/// InterfaceSignal from here, never a member's name as a string, and the table is checked
/// against the interface's XML both ways, as MethodTable is, so a signal the XML lacks, or
/// one it declares that nothing sends, stops the service (and fails a test) by name.
public struct SignalTable: Sendable {
    public let interface: String
    public let signals: [InterfaceSignal]

    /// `members` are the interface's signals; each becomes a InterfaceSignal.
    public init(interface: String, _ members: [String]) {
        precondition(Set(members).count == members.count, "\(interface) declares a signal twice")
        self.interface = interface
        signals = members.map { InterfaceSignal(interface, $0) }
    }

    /// The signal named `member`; a name the table lacks is a bug in the sender, so it stops the program.
    public subscript(member: String) -> InterfaceSignal {
        guard let signal = signals.first(where: { $0.member == member }) else {
            preconditionFailure("\(interface) declares no signal \(member)")
        }
        return signal
    }

    /// Compares the rows with the signals `info` declares.
    public func check(against info: UnsafeMutablePointer<GDBusInterfaceInfo>) throws(DaemonError) {
        try InterfaceMembers.compare(
            "signal table", of: interface, declared: InterfaceMembers.names(info.pointee.signals) { $0.pointee.name },
            rows: Set(signals.map(\.member)), missing: "declared in the XML but not in the table",
            extra: "in the table but not declared")
    }

    /// The same check against the interface of that name in `xml`.
    public func check(againstXML xml: String) throws(DaemonError) {
        try InterfaceMembers.withInterface(interface, in: xml, check(against:))
    }
}
