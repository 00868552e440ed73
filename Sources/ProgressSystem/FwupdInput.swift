import CGLib
import ProgressBus
import ProgressCore
import ProgressText

/// fwupd's firmware updates as tasks `system/fwupd/<n>`, one per update: the daemon's
/// `Status` and `Percentage` (read with `GetAll`, then `PropertiesChanged`) say that an
/// update runs and how far (0 with a busy status is indeterminate), and `DeviceChanged`
/// names the device whose own status is busy. The update starts when the status leaves
/// idle and ends when it comes back: failed when the device's `UpdateState` says so (with
/// its `UpdateError`), finished otherwise. fwupd's jobs belong to no user, so they show
/// in every session.
final class FwupdInput: SystemJobSource {
    let busName = "org.freedesktop.fwupd"
    static let path = "/"

    private unowned let jobs: SystemJobs
    private let signals = SystemSignals()
    private var generation = 0
    private var status: UInt32 = 1
    private var percentage: UInt32 = 0
    private var device: Device?
    private var task: TaskName?
    private var updates = 0

    struct Device {
        var id = ""
        var name = ""
        /// FwupdUpdateState: 3 failed, 5 failed-transient.
        var updateState: UInt64 = 0
        var updateError = ""
        var failed: Bool { updateState == 3 || updateState == 5 }
    }

    init(jobs: SystemJobs) { self.jobs = jobs }

    func appeared(on connection: OpaquePointer, owner: String) {
        signals.subscribe(connection, sender: owner, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                          path: Self.path, arg0: busName) { [unowned self] _, _, parameters in
            apply(Variant.optionsChild(parameters, 1))
        }
        signals.subscribe(connection, sender: owner, interface: busName, member: "DeviceChanged", path: Self.path) {
            [unowned self] _, _, parameters in
            deviceChanged(Variant.optionsChild(parameters, 0))
        }
        let generation = generation
        AsyncBusCall.call(connection, destination: owner, path: Self.path, interface: "org.freedesktop.DBus.Properties",
                          method: "GetAll", Variant.tuple([Variant.string(busName)]), replyType: "(a{sv})") { [weak self] result in
            guard let self, self.generation == generation else { return }
            switch result {
            case .success(let reply): apply(Variant.optionsChild(reply, 0))
            case .failure(let failure): Log.notice("fwupd: GetAll failed: \(failure.message)")
            }
        }
    }

    func vanished(_ why: String) {
        generation += 1
        signals.unsubscribeAll()
        if let task { jobs.end(task, .failed(why)) }
        task = nil
        device = nil
        status = 1
        percentage = 0
    }

    private func apply(_ properties: [(key: String, value: OptionValue)]) {
        for (key, value) in properties {
            switch (key, value.kind) {
            case ("Status", .unsignedInteger(let number)): status = UInt32(clamping: number)
            case ("Percentage", .unsignedInteger(let number)): percentage = UInt32(clamping: min(number, 100))
            default: break
            }
        }
        refresh()
    }

    private func deviceChanged(_ properties: [(key: String, value: OptionValue)]) {
        var changed = Device()
        var busy = false
        for (key, value) in properties {
            switch (key, value.kind) {
            case ("DeviceId", .string(let text)): changed.id = text
            case ("Name", .string(let text)): changed.name = text
            case ("UpdateState", .unsignedInteger(let number)): changed.updateState = number
            case ("UpdateError", .string(let text)): changed.updateError = text
            case ("Status", .unsignedInteger(let number)): busy = FwupdTexts.isUpdating(UInt32(clamping: number))
            default: break
            }
        }
        // The device being updated is the one busy now (a composite update moves on to the next).
        guard changed.id == device?.id || busy else { return }
        if changed.name.isEmpty, changed.id == device?.id { changed.name = device?.name ?? "" }
        device = changed
        if task != nil { refresh() }
    }

    private func refresh() {
        let updating = FwupdTexts.isUpdating(status)
        if !updating {
            guard let task else { return device = nil }
            self.task = nil
            let outcome: SystemJobState.Outcome = device?.failed == true
                ? .failed(device.map { $0.updateError.isEmpty ? "the firmware update failed" : $0.updateError } ?? "")
                : .finished
            device = nil
            return jobs.end(task, outcome)
        }
        var state = SystemJobState()
        if let name = device?.name, !name.isEmpty {
            state.title = jobs.text(MessageCatalog.updatingFirmwareOf, ["device": name])
        } else {
            state.title = jobs.text(MessageCatalog.updatingFirmware)
        }
        state.message = FwupdTexts.message(status: status).map { jobs.text($0) } ?? ""
        state.fraction = percentage == 0 ? nil : Double(percentage) / 100
        if let task {
            jobs.update(task, state)
        } else {
            updates += 1
            guard let name = jobs.taskName(.fwupd, String(updates)) else { return }
            task = name
            jobs.start(name, state)
        }
    }
}
