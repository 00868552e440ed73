import CGLib
import ProgressBus
import ProgressModel
import ProgressText

/// UDisks2's jobs (formatting with erase, SMART self-tests, resizes, …) as tasks
/// `system/udisks2/<job number>`: `org.freedesktop.UDisks2.Job` objects, found through the
/// ObjectManager (`GetManagedObjects`, then `InterfacesAdded`/`InterfacesRemoved`) and
/// followed through `PropertiesChanged`. `Completed(success, message)` ends a job. A
/// cancel request on a `Cancelable` job calls `Job.Cancel({})`; polkit decides, and a
/// refusal becomes the task's message and withdraws the request (a second one asks again).
final class UDisksInput: SystemJobSource {
    static let root = "/org/freedesktop/UDisks2"
    static let jobInterface = "org.freedesktop.UDisks2.Job"
    private var jobsByPath: [String: Job] = [:]
    /// What the title calls a block device or drive: its label, device file, or model.
    private var objectNames: [String: String] = [:]

    init(jobs: SystemJobs) { super.init(busName: "org.freedesktop.UDisks2", jobs: jobs) }

    final class Job {
        let path: String
        var operation = ""
        var progress = 0.0
        var progressValid = false
        var bytes: UInt64 = 0
        var objects: [String] = []
        var uid: UInt32?
        var cancelable = false
        var task: TaskName?
        var cancelRequested = false
        var ended = false
        init(path: String) { self.path = path }
    }

    override func serviceAppeared() {
        let manager = "org.freedesktop.DBus.ObjectManager"
        subscribe(interface: manager, member: "InterfacesAdded", path: Self.root) {
            [unowned self] _, _, parameters in
            let interfaces = Variant.child(parameters, 1)
            defer { g_variant_unref(interfaces) }
            added(Variant.stringChild(parameters, 0), interfaces)
        }
        subscribe(interface: manager, member: "InterfacesRemoved", path: Self.root) { [unowned self] _, _, parameters in
            guard Variant.stringsChild(parameters, 1).contains(Self.jobInterface),
                  let job = jobsByPath.removeValue(forKey: Variant.stringChild(parameters, 0)) else { return }
            // Gone without Completed (udisksd stops it): no outcome can follow.
            if !job.ended, let task = job.task { jobs.end(task, .failed("udisksd dropped the job without a result")) }
        }
        subscribe(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", arg0: Self.jobInterface) {
            [unowned self] path, _, parameters in
            guard let job = jobsByPath[path] else { return }
            apply(VariantDictionary(child: 1, of: parameters), to: job)
            if let objects = Self.objectPaths(parameters, 1) { job.objects = objects }
            refresh(job)
        }
        subscribe(interface: Self.jobInterface, member: "Completed") { [unowned self] path, _, parameters in
            guard let job = jobsByPath[path], !job.ended else { return }
            job.ended = true
            guard let task = job.task else { return }
            let success = Variant.boolChild(parameters, 0)
            let message = Variant.stringChild(parameters, 1)
            jobs.end(task, success ? .finished : job.cancelRequested ? .cancelled
                : .failed(message.isEmpty ? "the disk job failed" : message))
        }
        call(Self.root, manager, "GetManagedObjects", Variant.tuple([]), replyType: "(a{oa{sa{sv}}})") {
            [weak self] result in
            guard let self else { return }
            guard case .success(let reply) = result else {
                if case .failure(let failure) = result { Log.notice("UDisks2: GetManagedObjects failed: \(failure)") }
                return
            }
            let objects = Variant.child(reply, 0)
            defer { g_variant_unref(objects) }
            // Drives and block devices first, so that a job's title can name them.
            for jobsToo in [false, true] {
                Variant.forEachChild(objects) { entry in
                    let interfaces = Variant.child(entry, 1)
                    defer { g_variant_unref(interfaces) }
                    added(Variant.stringChild(entry, 0), interfaces, jobs: jobsToo)
                }
            }
        }
    }

    override func serviceVanished(_ why: String) {
        for job in jobsByPath.values where !job.ended {
            if let task = job.task { jobs.end(task, .failed(why)) }
        }
        jobsByPath.removeAll()
        objectNames.removeAll()
    }

    /// The `Objects` (an `ao`) of the a{sv} child `index`, if it has them.
    private static func objectPaths(_ tuple: OpaquePointer, _ index: Int) -> [String]? {
        Variant.withChild(tuple, index) { properties in
            guard let value = Variant.lookup(properties, "Objects", type: "ao") else { return nil }
            defer { g_variant_unref(value) }
            return Variant.mapChildren(value) { String(cString: g_variant_get_string($0, nil)) }
        }
    }

    /// An object's interfaces (a{sa{sv}}): a job is tracked; a drive or block device named.
    private func added(_ path: String, _ interfaces: OpaquePointer, jobs jobsToo: Bool = true) {
        Variant.forEachChild(interfaces) { entry in
            let interface = Variant.stringChild(entry, 0)
            let properties = VariantDictionary(child: 1, of: entry)
            switch interface {
            case Self.jobInterface where jobsToo && jobsByPath[path] == nil:
                let job = Job(path: path)
                jobsByPath[path] = job
                apply(properties, to: job)
                job.objects = Self.objectPaths(entry, 1) ?? []
                refresh(job)
            case "org.freedesktop.UDisks2.Block":
                named(path, Self.blockName(properties))
            case "org.freedesktop.UDisks2.Drive":
                named(path, Self.driveName(properties))
            default: break
            }
        }
    }

    /// A device's name became known (a job's InterfacesAdded can come before the reply that
    /// names its drive): the jobs on it get their title.
    private func named(_ path: String, _ name: String?) {
        guard let name, objectNames[path] != name else { return }
        objectNames[path] = name
        for job in jobsByPath.values where job.objects.contains(path) { refresh(job) }
    }

    static func blockName(_ properties: VariantDictionary) -> String? {
        if let label = properties.string("IdLabel"), !label.isEmpty { return label }
        guard let device = properties.bytes("PreferredDevice") else { return nil }
        let text = String(decoding: device.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    static func driveName(_ properties: VariantDictionary) -> String? {
        let words = ["Vendor", "Model"].compactMap { key -> String? in
            guard let text = properties.string(key), !text.isEmpty else { return nil }
            return String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// Rate, StartTime and ExpectedEndTime are not read: progressd estimates from the progress.
    private func apply(_ properties: VariantDictionary, to job: Job) {
        if let operation = properties.string("Operation") { job.operation = operation }
        if let progress = properties.double("Progress") { job.progress = progress }
        if let valid = properties.bool("ProgressValid") { job.progressValid = valid }
        if let bytes = properties.unsigned("Bytes") { job.bytes = bytes }
        // UDisks2 says 0 for root or a job it started itself: a job of no user.
        if let uid = properties.unsigned("StartedByUID") { job.uid = uid == 0 ? nil : UInt32(clamping: uid) }
        if let cancelable = properties.bool("Cancelable") { job.cancelable = cancelable }
    }

    private func refresh(_ job: Job) {
        guard !job.ended, jobs.shows(uid: job.uid) else { return }
        var state = SystemJobState()
        let drive = job.objects.lazy.compactMap { self.objectNames[$0] }.first
            ?? job.objects.first.map { String($0.split(separator: "/").last ?? "") } ?? "…"
        state.title = jobs.text(UDisksTexts.title(operation: job.operation), ["drive": drive])
        state.fraction = job.progressValid ? job.progress : nil
        state.totalBytes = job.bytes
        if let task = job.task {
            jobs.update(task, state)
        } else if let task = jobs.taskName(.udisks2, String(job.path.split(separator: "/").last ?? "")) {
            job.task = task
            jobs.start(
                task, state,
                cancel: job.cancelable ? { [weak self, weak job] in if let job { self?.cancel(job) } } : nil)
        }
    }

    private func cancel(_ job: Job) {
        guard connection != nil, let task = job.task, !job.ended else { return }
        job.cancelRequested = true
        call(
            job.path, Self.jobInterface, "Cancel", Variant.tuple([Variant.container("a{sv}") { _ in }]), replyType: "()"
        ) { [weak self] result in
            guard let self, case .failure(let failure) = result else { return }
            job.cancelRequested = false
            jobs.refusedCancel(task, failure.message)
        }
    }
}
