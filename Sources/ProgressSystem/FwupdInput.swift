import ProgressBus
import ProgressModel
import ProgressText

/// fwupd's firmware updates as tasks `system/fwupd/<n>`, one per update: the daemon's
/// `Status` and `Percentage` (read with `GetAll`, then `PropertiesChanged`) say that an
/// update runs and how far (0 with a busy status is indeterminate), and `DeviceChanged`
/// names the device whose own status is busy. The update starts when the status leaves
/// idle and ends when it comes back: failed when the device's `UpdateState` says so (with
/// its `UpdateError`), finished otherwise. fwupd's jobs belong to no user, so they show
/// in every session.
final class FwupdInput: SystemJobSource {
    static let path = "/"
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

    init(jobs: SystemJobs) { super.init(busName: "org.freedesktop.fwupd", jobs: jobs) }

    override func serviceAppeared() {
        subscribe(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: Self.path, arg0: busName
        ) { [unowned self] _, _, parameters in
            apply(VariantDictionary(child: 1, of: parameters))
        }
        subscribe(interface: busName, member: "DeviceChanged", path: Self.path) { [unowned self] _, _, parameters in
            deviceChanged(VariantDictionary(child: 0, of: parameters))
        }
        call(
            Self.path, "org.freedesktop.DBus.Properties", "GetAll", Variant.tuple([Variant.string(busName)]),
            replyType: "(a{sv})"
        ) { [weak self] result in
            switch result {
            case .success(let reply): self?.apply(VariantDictionary(child: 0, of: reply))
            case .failure(let failure): Log.notice("fwupd: GetAll failed: \(failure)")
            }
        }
    }

    override func serviceVanished(_ why: String) {
        if let task { jobs.end(task, .failed(why)) }
        task = nil
        device = nil
        status = 1
        percentage = 0
    }

    private func apply(_ properties: VariantDictionary) {
        if let number = properties.unsigned("Status") { status = UInt32(clamping: number) }
        if let number = properties.unsigned("Percentage") { percentage = UInt32(clamping: min(number, 100)) }
        refresh()
    }

    private func deviceChanged(_ properties: VariantDictionary) {
        var changed = Device(
            id: properties.string("DeviceId") ?? "", name: properties.string("Name") ?? "",
            updateState: properties.unsigned("UpdateState") ?? 0, updateError: properties.string("UpdateError") ?? "")
        let busy = properties.unsigned("Status").map { FwupdTexts.isUpdating(UInt32(clamping: $0)) } ?? false
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
