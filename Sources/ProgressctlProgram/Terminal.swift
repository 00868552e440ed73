import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What progressctl needs of the terminal: whether there is one, its width, colours.
struct Terminal {
    let isInteractive: Bool
    let useColor: Bool

    init(environment: [String: String]) {
        isInteractive = isatty(STDOUT_FILENO) == 1
        // https://no-color.org: any non-empty NO_COLOR turns colour off.
        useColor = isInteractive && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    func paint(_ text: String, _ color: Color) -> String {
        useColor ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    enum Color: String {
        case green = "32", yellow = "33", red = "31", blue = "34", dim = "2"
    }
}

/// Lines redrawn in place: each frame moves the cursor back over the previous one.
struct InPlaceDrawing {
    private var drawnLines = 0

    mutating func frame(_ lines: [String]) -> String {
        var text = drawnLines > 0 ? "\r\u{1B}[\(drawnLines)A" : ""
        for line in lines { text += "\u{1B}[2K" + line + "\n" }
        text += "\u{1B}[J"
        drawnLines = lines.count
        return text
    }
}
