import CGLib
import ProgressModel
import ProgressCore
import ProgressRender

/// What the tray item shows for the tasks it stands for, computed from them at each
/// (paced) redraw and compared with the last one, so that a host is told only of what
/// changed: the ring's picture (NewIcon), the status (NewStatus), the title (NewTitle) and
/// the tooltip (NewToolTip).
struct TrayContent: Equatable {
    var picture: IconPixels.Picture
    /// NeedsAttention while a failed task lingers, else Active.
    var status: String
    /// One sentence for all tasks, in the daemon's locale ("2 tasks, 40 percent overall"):
    /// plain text, as the specification has it; client pieces are isolated.
    var title: String
    /// The tooltip's lines: one sentence per task. The tooltip is markup (waybar and
    /// Plasma show it as such), so `toolTip` escapes what goes in.
    var lines: [String]

    /// The tasks the tooltip names at most; more are counted in the title.
    static let maxLines = 10

    /// `tasks` are the top-level ones shown: live, or failed and lingering.
    init(tasks: [ProgressTask], summary: TaskSummary, texts: TaskDescribing) {
        let live = tasks.filter(\.isLive)
        let failed = tasks.filter { $0.ownState == .failed }
        let state: TaskState = !failed.isEmpty ? .failed : summary.state == "paused" ? .paused : .running
        // Only failures left: a whole red ring. Otherwise the live tasks' weighted percent,
        // rounded down as every label is, or the pulse when none is determinate.
        let percent: Int? = live.isEmpty
            ? 100 : summary.indeterminate ? nil : min(99, Int((summary.fraction * 100 + 1e-9).rounded(.down)))
        picture = IconPixels.Picture(wholePercent: percent, state: state, stalled: summary.stalled && failed.isEmpty)
        status = failed.isEmpty ? "Active" : "NeedsAttention"
        var counts = AnnouncementSummary()
        counts.moving = live.count
        counts.overallPercent = percent ?? 0
        counts.paused = live.filter { $0.state == .paused }.count
        counts.stalled = live.filter(\.isStalled).count
        // Failures are named in the title, as many as the tooltip has lines; more are counted.
        counts.failed = Array(failed.prefix(Self.maxLines))
        counts.failedLater = failed.count - counts.failed.count
        title = texts.summary(counts)
        lines = tasks.prefix(Self.maxLines).map { texts.accessibleText(of: $0) }
        if tasks.count > Self.maxLines { lines.append("…") }
    }

    /// `(sa(iiay)ss)`: no icon of its own, the title and the lines, markup-escaped.
    var toolTip: OpaquePointer {
        let body = lines.map(Self.escaped).joined(separator: "\n")
        var items: [OpaquePointer?] = [
            g_variant_new_string(""), "(iiay)".withCString { g_variant_new_array(shim_variant_type($0), nil, 0) },
            g_variant_new_string(Self.escaped(title)), g_variant_new_string(body),
        ]
        return g_variant_new_tuple(&items, 4)
    }

    static func escaped(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else { return "" }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    /// The sides drawn, in pixels: 16, 22, 24, 32 and 48 at scale 1 and 2, each once.
    static let iconSides = Array(Set([16, 22, 24, 32, 48].flatMap { [$0, $0 * 2] })).sorted()

    /// `a(iiay)`, every side of `iconSides`; the renderer's refusal is the caller's to handle.
    static func pixmaps(_ picture: IconPixels.Picture) throws(RenderError) -> OpaquePointer {
        var images: [OpaquePointer?] = []
        for side in iconSides {
            let bytes = try IconPixels.argb(picture, side: side)
            let data = bytes.withUnsafeBytes { raw in
                "y".withCString {
                    g_variant_new_fixed_array(shim_variant_type($0), raw.baseAddress, gsize(bytes.count), 1)
                }
            }
            var fields: [OpaquePointer?] = [g_variant_new_int32(Int32(side)), g_variant_new_int32(Int32(side)), data]
            images.append(g_variant_new_tuple(&fields, 3))
        }
        return "(iiay)".withCString { g_variant_new_array(shim_variant_type($0), &images, gsize(images.count)) }
    }

    /// An icon of the freedesktop Icon Naming Specification for the picture's state, which
    /// every icon theme has: shown instead of the ring when drawing is unavailable.
    static func iconName(_ picture: IconPixels.Picture) -> String {
        switch picture.state {
        case .failed: "dialog-error"
        case .paused: "media-playback-pause"
        default: "emblem-synchronizing"
        }
    }

    static var noPixmaps: OpaquePointer { "(iiay)".withCString { g_variant_new_array(shim_variant_type($0), nil, 0) } }
}
