import Foundation
import ProgressBus
import ProgressRendererService
import ProgressClient
import ProgressCore
import ProgressRender
import ProgressText

/// A request from the command line or the service, made into a RenderSpec: `task` is read
/// from progressd, `locale` gives the label's form and the direction, `label: "percent"`
/// the localized percent. The rest goes to RenderSpec as it is.
enum RenderRequest {
    static let ownKeys: Set<String> = ["task", "locale", "label", "title"]
    /// How long a render waits for progressd's Describe: a live task is a local call that
    /// takes milliseconds, and a hung daemon must not hold this request, or the requests
    /// queued behind it on the service's one thread, for D-Bus's default 25 seconds.
    static let progressdTimeoutMilliseconds: Int32 = 2_000

    static func resolve(
        _ options: [(key: String, value: OptionValue)], environment: [String: String]
    ) throws(RendererService.Refusal) -> (spec: RenderSpec, altText: String) {
        func string(_ key: String) throws(RendererService.Refusal) -> String? {
            guard let option = options.last(where: { $0.key == key }) else { return nil }
            do throws(ProgressError) {
                return try OptionReader(for: "Render", accepting: []).text(key, option.value)
            } catch {
                throw RendererService.Refusal("InvalidSpec", error.message)
            }
        }
        var rest = options.filter { !ownKeys.contains($0.key) }
        let locale: LocaleName
        let localeText = try string("locale")
        do throws(ProgressError) {
            locale = try localeText.map { text throws(ProgressError) in try LocaleName(text) } ?? .fromEnvironment(environment)
        } catch {
            throw RendererService.Refusal("InvalidSpec", error.message)
        }
        if !rest.contains(where: { $0.key == "direction" }),
           Locale.Language(identifier: locale.identifier).characterDirection == .rightToLeft {
            rest.append(("direction", .string("rtl")))
        }
        var title = try string("title") ?? ""
        var taskLabel: String?
        var taskSentence: String?
        if let name = try string("task") {
            let task = try describe(name, locale: locale)
            rest += [("fraction", .double(task["Fraction"]?.double ?? 0)), ("indeterminate", .bool(task["Indeterminate"]?.bool ?? false)),
                     ("state", .string(task["State"]?.string ?? "running")), ("stalled", .bool(task["Stalled"]?.bool ?? false))]
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
        let percentLabel = spec.indeterminate ? "" : (taskLabel ?? describers.describer(for: locale).label(wholePercent: percent))
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
        let altText = taskSentence ?? [title, percentLabel].filter { !$0.isEmpty }.joined(separator: ": ")
        return (spec, altText)
    }

    private static let describers = DescriberCache(catalog: MessageCatalog())

    private static func describe(_ name: String, locale: LocaleName) throws(RendererService.Refusal) -> [String: BusValue] {
        do {
            return try BusConnection.session().call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
                [.string(name), .string(locale.identifier)], timeoutMilliseconds: progressdTimeoutMilliseconds, autoStart: true
            ).first?.dictionary ?? [:]
        } catch {
            if error.name == BusNames.errorPrefix + "NoSuchTask" { throw RendererService.Refusal("NoSuchTask", error.message) }
            if error.name.hasPrefix(BusNames.errorPrefix) { throw RendererService.Refusal("InvalidSpec", error.message) }
            if error.name == "org.freedesktop.DBus.Error.NoReply" || error.message.lowercased().contains("timeout") || error.message.lowercased().contains("timed out") {
                throw RendererService.Refusal(
                    "Unavailable", "progressd did not answer within \(progressdTimeoutMilliseconds) ms: \(error.message)")
            }
            throw RendererService.Refusal("Unavailable", "progressd can not be reached: \(error.message)")
        }
    }

    /// Renders a resolved request, with the info the service returns beside the image.
    static func render(_ options: [(key: String, value: OptionValue)], environment: [String: String])
        throws(RendererService.Refusal) -> (image: [UInt8], info: [(String, PropertyValue)]) {
        let (spec, altText) = try resolve(options, environment: environment)
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
