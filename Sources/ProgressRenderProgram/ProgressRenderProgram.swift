import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ProgressCommandLine
import ProgressBus
import ProgressRenderService
import ProgressModel
import ProgressRender
import ProgressText

/// progress-render: draws a progress image from values or from a live task.
public enum ProgressRenderProgram {
    static let syntax = CommandSyntax(program: "progress-render", help: #"""
        Usage: progress-render [--style STYLE] (--fraction F | --task NAME) -o FILE [OPTIONS]
               progress-render --service

        Draws a progress image as PNG, SVG or PDF.

        Options:
          --style STYLE        bar, striped, ring, pulse or skin (default bar)
          --fraction F         how much is done, 0 to 1
          --task NAME          draw a live progressd task instead
          --size WxH           in logical pixels (default 300x24)
          --scale N            device pixels per logical pixel (default 1)
          --format FORMAT      png, svg, pdf or apng (default: from the file name)
          --theme THEME        light, dark or high-contrast
          --state STATE        running, paused, finished, failed or cancelled
          --indeterminate      the amount of work is unknown
          --phase P            animation phase of stripes or pulse, 0 to 1
          --label TEXT         a label to draw
          --percent-label      draw the percent, in the locale's own form
          --locale LOCALE      for the label and direction (default: from LANG)
          --variant VARIANT    default, or bar for the thin bar
          --fill FILL          striped: gradient (default) or flat
          --no-inner-shadow    striped: no inner shadow in the track
          --frames N           apng: frames (default 24)
          --duration SECONDS   apng: length of the animation (default 1)
          --from-fraction F    apng: animate the value from F to --fraction
          --easing EASING      apng: ease-out (default) or spring
          --reduce-motion      a single frame, without motion
          --track-image PNG    skin: the track's image
          --fill-image PNG     skin: the fill's image
          -o FILE              where to write the image
          --list-styles        print the styles and exit
          --service            serve org.progressd.Renderer1 on the session bus (D-Bus activation)
          --version            print the version and exit
          --help               print this help and exit

        Examples:
          progress-render --style ring --fraction 0.42 --size 128x128 --scale 2 -o ring.png
          progress-render --style striped --task backup --percent-label -o backup.svg
        """#)

    /// Runs the program with its arguments (without its own name) and environment.
    public static func main(_ arguments: [String], environment: [String: String]) -> Never {
        let parsed = syntax.parseOrExit(arguments, version: ProgressVersion.current)
        if parsed.has("service") {
            // D-Bus activation starts this: serve org.progressd.Renderer1 until the bus goes or a signal comes.
            let service: RendererService
            do {
                service = try RendererService(acceptedKeys: RenderRequest.acceptedKeys) { options, completion in
                    RenderRequest.render(options, environment: environment, completion)
                }
            } catch {
                syntax.fail(error.description, status: 1)
            }
            exit(ServiceRunner(busName: RendererService.busName).run(
                setUp: { connection throws(DaemonError) in try service.register(on: connection) },
                tearDown: {}))
        }
        if parsed.has("list-styles") {
            print(RenderSpec.Style.allCases.map(\.rawValue).joined(separator: "\n"))
            exit(0)
        }
        guard let file = parsed.values["o"] else { syntax.fail("missing -o FILE") }
        if !parsed.positionals.isEmpty { syntax.fail("unexpected argument '\(parsed.positionals[0])'") }

        var spec: [(key: String, value: OptionValue)] = []
        func put(_ key: String, _ value: OptionValue) { spec.append((key, value)) }
        for key in ["style", "theme", "state", "variant", "task", "locale", "label", "easing", "fill"] {
            if let value = parsed.values[key] { put(key, .string(value)) }
        }
        do {
            if let frames = try parsed.count("frames") { put("frames", .uint64(frames)) }
            for key in ["fraction", "scale", "phase", "duration", "from-fraction"] {
                if let number = try parsed.number(key) { put(key, .double(number)) }
            }
            if let size = try parsed.size("size") {
                put("width", .uint64(UInt64(size.width)))
                put("height", .uint64(UInt64(size.height)))
            }
        } catch {
            syntax.fail(error.message)
        }
        if parsed.has("reduce-motion") { put("reduce-motion", .bool(true)) }
        if parsed.has("no-inner-shadow") { put("inner-shadow", .bool(false)) }
        if parsed.has("indeterminate") { put("indeterminate", .bool(true)) }
        for key in ["track-image", "fill-image"] {
            guard let path = parsed.values[key] else { continue }
            guard let data = FileManager.default.contents(atPath: path) else {
                syntax.fail("can not read \(path)", status: 66)
            }
            put(key, OptionValue(.bytes(Array(data)), signature: "ay"))
        }
        if parsed.has("percent-label") { put("label", .string("percent")) }
        let format = parsed.values["format"] ?? URL(fileURLWithPath: file).pathExtension.lowercased()
        put("format", .string(format.isEmpty ? "png" : format))

        do {
            let image = try RenderRequest.render(spec, environment: environment).image
            try Data(image).write(to: URL(fileURLWithPath: file))
        } catch let refusal as RendererService.Refusal {
            syntax.fail(
                refusal.message,
                status: ["InvalidSpec", "InvalidImage"].contains(refusal.name) ? 64
                    : refusal.name == "NoSuchTask" ? 1 : 69)
        } catch {
            syntax.fail("could not write \(file): \(error)", status: 73)
        }
        exit(0)
    }
}
