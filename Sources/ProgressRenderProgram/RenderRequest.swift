import FoundationEssentials
import ProgressBus
import ProgressRenderService
import ProgressClient
import ProgressModel
import ProgressRender
import ProgressText

/// A request from the command line or the service, made into a RenderSpec: `task` is read
/// from progressd, `locale` gives the label's form and the direction, `label: "percent"`
/// the localized percent. The rest goes to RenderSpec as it is.
enum RenderRequest {
    static let ownKeys: Set<String> = ["task", "locale", "label", "title"]
    /// RenderSpec's keys and this request's own, each once.
    static let acceptedKeys = RenderSpec.keys + ownKeys.subtracting(RenderSpec.keys).sorted()
    /// How long a render waits for progressd's Describe: a live task is a local call that
    /// takes milliseconds, and a hung daemon must not hold this request, or the requests
    /// queued behind it on the service's one thread, for D-Bus's default 25 seconds.
    static let progressdTimeoutMilliseconds: Int32 = 2_000

    static func string(
        _ key: String, in options: [(key: String, value: OptionValue)]
    ) throws(RendererService.Refusal) -> String? {
        guard let option = options.last(where: { $0.key == key }) else { return nil }
        do throws(ProgressError) {
            return try OptionReader(for: "Render", accepting: []).text(key, option.value)
        } catch {
            throw RendererService.Refusal("InvalidSpec", error.message)
        }
    }

    static func locale(
        of options: [(key: String, value: OptionValue)], environment: [String: String]
    ) throws(RendererService.Refusal) -> LocaleName {
        guard let text = try string("locale", in: options) else { return .fromEnvironment(environment) }
        do throws(ProgressError) {
            return try LocaleName(text)
        } catch {
            throw RendererService.Refusal("InvalidSpec", error.message)
        }
    }

    /// The spec, with `task` the properties progressd described (nil without "task").
    static func resolve(
        _ options: [(key: String, value: OptionValue)], environment: [String: String], task: [String: BusValue]?
    ) throws(RendererService.Refusal) -> (spec: RenderSpec, altText: String) {
        func string(_ key: String) throws(RendererService.Refusal) -> String? { try Self.string(key, in: options) }
        var rest = options.filter { !ownKeys.contains($0.key) }
        let locale = try Self.locale(of: options, environment: environment)
        if !rest.contains(where: { $0.key == "direction" }),
           locale.isRightToLeft {
            rest.append(("direction", .string("rtl")))
        }
        var title = try string("title") ?? ""
        var taskLabel: String?
        var taskSentence: String?
        if let name = try string("task"), let task {
            rest += [
                ("fraction", .double(task["Fraction"]?.double ?? 0)),
                ("indeterminate", .bool(task["Indeterminate"]?.bool ?? false)),
                ("state", .string(task["State"]?.string ?? "running")),
                ("stalled", .bool(task["Stalled"]?.bool ?? false)),
            ]
            taskLabel = task["Label"]?.string
            taskSentence = task["AccessibleText"]?.string
            if title.isEmpty { title = task["Title"]?.string ?? name }
        }
        var spec: RenderSpec
        do {
            spec = try RenderSpec.parse(rest)
        } catch {
            throw RendererService.Refusal(error.name, error.message)
        }
        // The same rule as the daemon's labels: rounded down; only a finished task reads 100.
        let percent = spec.state == .finished ? 100 : min(99, Int((spec.fraction * 100 + 1e-9).rounded(.down)))
        let percentLabel = spec.indeterminate
            ? "" : (taskLabel ?? describers.value.describer(for: locale).label(wholePercent: percent))
        switch try string("label") {
        case "percent"?: spec.label = percentLabel
        case let text?:
            do {
                // A label from the caller is isolated like any client text (right-to-left, overrides).
                spec.label = ClientText.isolated(try RenderSpec.checkedLabel(text))
            } catch {
                throw RendererService.Refusal(error.name, error.message)
            }
        case nil: break
        }
        let altText = taskSentence
            ?? [ClientText.isolated(title), percentLabel].filter { !$0.isEmpty }.joined(separator: ": ")
        return (spec, altText)
    }

    private static let describers = ThreadBound(DescriberCache(catalog: MessageCatalog()))

    /// The service's one connection to the session bus for Describe, made on first use.
    nonisolated(unsafe) private static var serviceBus: BusConnection?

    private static func describe(
        _ name: String, locale: LocaleName
    ) throws(RendererService.Refusal) -> [String: BusValue] {
        do {
            return try BusConnection.session().call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
                [.string(name), .string(locale.identifier)], timeoutMilliseconds: progressdTimeoutMilliseconds,
                autoStart: true
            ).first?.dictionary ?? [:]
        } catch {
            throw refusal(error)
        }
    }

    /// Describe without blocking the service's loop: other requests are served meanwhile.
    private static func describeAsync(
        _ name: String, locale: LocaleName,
        _ completion: @escaping (Result<[String: BusValue], RendererService.Refusal>) -> Void
    ) {
        let bus: BusConnection
        do {
            if serviceBus == nil || serviceBus?.isClosed == true { serviceBus = try BusConnection.session() }
            bus = serviceBus!
        } catch {
            return completion(.failure(refusal(error)))
        }
        bus.callAsync(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
            [.string(name), .string(locale.identifier)], timeoutMilliseconds: progressdTimeoutMilliseconds,
            autoStart: true
        ) { result in
            completion(result.map { $0.first?.dictionary ?? [:] }.mapError(refusal))
        }
    }

    private static func refusal(_ error: BusCallError) -> RendererService.Refusal {
        if error.name == BusNames.errorPrefix + "NoSuchTask" {
            return RendererService.Refusal("NoSuchTask", error.message)
        }
        if error.name.hasPrefix(BusNames.errorPrefix) { return RendererService.Refusal("InvalidSpec", error.message) }
        let message = error.message.lowercased()
        if error.name == "org.freedesktop.DBus.Error.NoReply"
            || message.contains("timeout") || message.contains("timed out") {
            return RendererService.Refusal(
                "Unavailable", "progressd did not answer within \(progressdTimeoutMilliseconds) ms: \(error.message)")
        }
        return RendererService.Refusal("Unavailable", "progressd can not be reached: \(error.message)")
    }

    /// Renders a request, asking progressd synchronously (the command line: nothing else waits).
    static func render(_ options: [(key: String, value: OptionValue)], environment: [String: String])
        throws(RendererService.Refusal) -> RendererService.Rendered {
        var task: [String: BusValue]?
        if let name = try string("task", in: options) {
            task = try describe(name, locale: locale(of: options, environment: environment))
        }
        return try draw(options, environment: environment, task: task)
    }

    /// Renders a request for the service: a task is described without blocking, so one
    /// request waiting for a slow progressd holds no other; the answer comes in `completion`.
    static func render(
        _ options: [(key: String, value: OptionValue)], environment: [String: String],
        _ completion: @escaping (Result<RendererService.Rendered, RendererService.Refusal>) -> Void
    ) {
        let name: String?
        let locale: LocaleName
        do throws(RendererService.Refusal) {
            name = try string("task", in: options)
            locale = try Self.locale(of: options, environment: environment)
        } catch {
            return completion(.failure(error))
        }
        guard let name else {
            return completion(Result { () throws(RendererService.Refusal) in
                try draw(options, environment: environment, task: nil)
            })
        }
        describeAsync(name, locale: locale) { described in
            completion(Result { () throws(RendererService.Refusal) in
                try draw(options, environment: environment, task: described.get())
            })
        }
    }

    private static func draw(
        _ options: [(key: String, value: OptionValue)], environment: [String: String], task: [String: BusValue]?
    ) throws(RendererService.Refusal) -> RendererService.Rendered {
        let (spec, altText) = try resolve(options, environment: environment, task: task)
        do {
            let image = try ProgressRenderer.render(spec)
            return (image.data, [("width", .uint64(UInt64(image.width))), ("height", .uint64(UInt64(image.height))),
                                 ("scale", .double(image.scale)), ("format", .string(image.format.rawValue)),
                                 ("alt-text", .string(altText))])
        } catch {
            throw RendererService.Refusal(error.name, error.message)
        }
    }
}
