import ProgressModel

/// Panel icons: the ring drawn for a status icon, as the bytes a StatusNotifierItem's
/// `IconPixmap` carries. Hosts read those bytes as ARGB32 in network byte order, that is
/// A, R, G, B for each pixel, not premultiplied (waybar turns them into a GdkPixbuf's RGBA
/// by moving the first byte to the end; Plasma and the GNOME AppIndicator extension read
/// the same order).
public enum IconPixels {
    /// What the icon shows: one figure for all the tasks it stands for.
    public struct Picture: Equatable, Sendable {
        /// The whole percent on the ring; nil draws the pulse look (nothing is determinate).
        public var wholePercent: Int?
        public var state: TaskState
        public var stalled: Bool

        public init(wholePercent: Int?, state: TaskState, stalled: Bool) {
            self.wholePercent = wholePercent
            self.state = state
            self.stalled = stalled
        }
    }

    /// Colors that keep their contrast on a dark panel and on a light one: no tray protocol
    /// tells an item the panel's color. The dark theme's fills are the lighter ones; the
    /// track is a middle grey, which the ring draws half transparent.
    static let theme = Theme.dark
    static let track = Color(hex: 0x9A9996)

    /// The ring of `picture`, `side` pixels square: a full circle from twelve o'clock,
    /// clockwise, filled to the percent in the state's color; the pulse look is a quarter
    /// arc that starts at half past one, where no determinate ring begins.
    public static func ring(_ picture: Picture, side: Int) throws(RenderError) -> RenderSpec {
        var spec = RenderSpec()
        spec.style = .ring
        spec.width = side
        spec.height = side
        spec.theme = theme
        spec.state = picture.state
        spec.stalled = picture.stalled
        spec.startAngle = -90
        spec.endAngle = 270
        spec.lineWidth = max(2, (Double(side) * 0.2).rounded())
        spec.trackColor = track
        spec.progressColor = theme.fill(for: picture.state, stalled: picture.stalled)
        spec.innerShadow = false
        if let percent = picture.wholePercent {
            spec.fraction = Double(min(100, max(0, percent))) / 100
        } else {
            spec.indeterminate = true
            spec.phase = 0.125
        }
        return spec
    }

    /// The ring's pixels, row by row from the top left, four bytes each: A, R, G, B.
    public static func argb(_ picture: Picture, side: Int) throws(RenderError) -> [UInt8] {
        let raster = try ProgressRenderer.raster(ring(picture, side: side))
        var bytes = [UInt8](repeating: 0, count: raster.pixels.count * 4)
        for (index, pixel) in raster.pixels.enumerated() {
            // cairo's ARGB32 is a native-endian word, premultiplied: unpremultiply each channel.
            let alpha = pixel >> 24
            func channel(_ shift: UInt32) -> UInt8 {
                guard alpha > 0 else { return 0 }
                return UInt8(min(255, ((pixel >> shift & 0xFF) * 255 + alpha / 2) / alpha))
            }
            bytes[index * 4] = UInt8(alpha)
            bytes[index * 4 + 1] = channel(16)
            bytes[index * 4 + 2] = channel(8)
            bytes[index * 4 + 3] = channel(0)
        }
        return bytes
    }
}
