/// How a task's record keeps the connection it is bound to (`ProgressTask.boundConnection`):
/// its unique name (`callerName`), and the process behind it, its id (`callerPid`) and the
/// time it started (`callerStart`, /proc/PID/stat's `starttime`). A restart binds the task
/// again only when that unique name is still on the bus and still that very process: a unique
/// name is never given twice on one bus, and a process id with its start time is never given
/// twice on one boot, so a new bus (a new login) or a reused id does not take the task over.
/// Records of older daemons have none of these keys: their `caller` tasks wait for their job.
public enum TaskBinding {
    public static let nameKey = "callerName"
    public static let processKey = "callerPid"
    public static let startKey = "callerStart"

    static func save(_ client: ClientID, into record: inout TaskRecord) {
        record.fields[nameKey] = .string(client.uniqueName)
        if let pid = client.identity.processID { record.fields[processKey] = .integer(Int64(pid)) }
        if let start = client.identity.processStart, let value = Int64(exactly: start) {
            record.fields[startKey] = .integer(value)
        }
    }

    /// The connection a record names, with the owner the task has; nil when it names none,
    /// and nil (with `wrong` set) when a key has a value of the wrong type.
    package static func restore(from record: TaskRecord, owner: TaskOwner, wrong: inout [String]) -> ClientID? {
        guard let value = record.fields[nameKey] else { return nil }
        guard let name = value.string, name.hasPrefix(":") else {
            wrong.append(nameKey)
            return nil
        }
        var identity = CallerIdentity(owner: owner)
        if let pid = record.fields[processKey] {
            guard let number = pid.uint64, let id = UInt32(exactly: number) else {
                wrong.append(processKey)
                return nil
            }
            identity.processID = id
        }
        if let start = record.fields[startKey] {
            guard let ticks = start.uint64 else {
                wrong.append(startKey)
                return nil
            }
            identity.processStart = ticks
        }
        return ClientID(name, identity: identity)
    }
}
