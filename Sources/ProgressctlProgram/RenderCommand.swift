import FoundationEssentials
import ProgressCommandLine
import ProgressBus
import ProgressClient

/// Asks the renderer service for a picture of a task.
enum RenderCommand {
    static let service = "org.progressd.Renderer1"

    static let command = Command(
        "render", help: #"""
        Usage: progressctl render NAME -o FILE [--style STYLE] [--size WxH] [--scale N] [--format FORMAT] \#
        [--theme THEME]

        Draws a task as an image, through the renderer service.

        Needs the renderer service (org.progressd.Renderer1); without it, exit status 69.

        Options:
          -o FILE           where to write the image
          --style STYLE     bar, striped, ring, skin or pulse
          --size WxH        in logical pixels, such as 300x24
          --scale N         device pixels per logical pixel
          --format FORMAT   png, svg, pdf or apng
          --theme THEME     light, dark or high-contrast

        Examples:
          progressctl render backup -o backup.png --style ring --size 128x128 --scale 2
        """#,
        run: { arguments, context in
            let name = try arguments.positionals("NAME")[0]
            guard let file = arguments.values["o"] else { throw UsageError("missing -o FILE") }
            var spec: [(String, BusValue)] = [
                ("task", .string(name)), ("locale", .string(context.locale)), ("label", .string("percent")),
            ]
            for key in ["style", "format", "theme"] {
                if let value = arguments.values[key] { spec.append((key, .string(value))) }
            }
            if let size = try arguments.size("size") {
                spec += [("width", .uint32(size.width)), ("height", .uint32(size.height))]
            }
            if let scale = arguments.values["scale"] {
                guard let value = Double(scale), value > 0 else {
                    throw UsageError("--scale needs a number, not '\(scale)'")
                }
                spec.append(("scale", .double(value)))
            }
            let reply: [BusValue]
            do {
                reply = try context.bus().call(service, "/org/progressd/Renderer1", "org.progressd.Renderer1", "Render",
                                               [.vardict(spec)], autoStart: true)
            } catch let error as BusCallError {
                throw ServiceError.from(error, service: service)
            }
            let bytes = reply.first?.array?.compactMap { value -> UInt8? in
                if case .byte(let byte) = value { return byte }
                return nil
            } ?? []
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            return 0
        })
}
