import Foundation
import ProgressClient
import ProgressRender
import ProgressTestSupport
import XCTest

/// The ring in IconPixmap: its sizes, its byte order, and how often hosts are told to redraw.
final class TrayIconTests: TrayTestCase {
    /// Each image of IconPixmap: side and A,R,G,B bytes.
    func pixmaps() throws -> [(width: Int, height: Int, bytes: [UInt8])] {
        try (itemProperty("IconPixmap").array ?? []).map { image in
            guard case .tuple(let fields) = image, fields.count == 3 else {
                throw TestSupportError("not (iiay): \(image)")
            }
            let bytes = (fields[2].array ?? []).map { value -> UInt8 in
                if case .byte(let byte) = value { byte } else { 0 }
            }
            return (Int(fields[0].integer ?? 0), Int(fields[1].integer ?? 0), bytes)
        }
    }

    func pixel(_ image: (width: Int, height: Int, bytes: [UInt8]), _ x: Int, _ y: Int) -> [Int] {
        let offset = (y * image.width + x) * 4
        return image.bytes[offset..<offset + 4].map { Int($0) }
    }

    func testThePixmapsAreTheRingAtEverySizeInARGBOrder() throws {
        let watcher = try watcher()
        try start("copy", [("fraction", .double(0.42))])
        event(watcher, "register")
        let images = try pixmaps()
        XCTAssertEqual(images.map(\.width), [16, 22, 24, 32, 44, 48, 64, 96], "16, 22, 24, 32 and 48 at scales 1 and 2")
        for image in images {
            XCTAssertEqual(image.height, image.width)
            XCTAssertEqual(image.bytes.count, 4 * image.width * image.height)
        }
        let image = try XCTUnwrap(images.first { $0.width == 48 })
        // 48 pixels: a 10-pixel line on a circle of radius 18. 42 % from twelve o'clock
        // passes three o'clock, filled in the running blue #62A0EA, opaque: A first, then R, G, B.
        XCTAssertEqual(pixel(image, 42, 24), [255, 0x62, 0xA0, 0xEA])
        // Nine o'clock is the track, middle grey #9A9996 at half opacity.
        let track = pixel(image, 5, 24)
        XCTAssertEqual(Double(track[0]), 128, accuracy: 2)
        XCTAssertEqual(Double(track[1]), 0x9A, accuracy: 3)
        XCTAssertEqual(Double(track[3]), 0x96, accuracy: 3)
        XCTAssertEqual(pixel(image, 24, 24)[0], 0, "the middle is clear")
    }

    func testHostsAreToldOfANewIconOnlyWhenThePictureChangesAndAtMostAFewTimesASecond() throws {
        let watcher = try watcher()
        var newIcons = 0
        try start("copy", [("fraction", .double(0.42))])
        event(watcher, "register")
        client.subscribe(sender: itemName, interface: Self.itemInterface, member: "NewIcon") { _ in newIcons += 1 }
        // Same whole percent: the same picture, no NewIcon.
        for fraction in [0.421, 0.425, 0.4299] { try manager("SetFraction", [.string("copy"), .double(fraction)]) }
        try manager("SetFraction", [.string("copy"), .double(0.43)])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { newIcons >= 1 })
        waitForToolTip { title, _ in title.contains("43 percent") }
        // Signals sent before the tooltip's reply wait in the queue: count them too.
        BusConnection.drain()
        XCTAssertEqual(newIcons, 1, "one new picture, one NewIcon")

        // A hundred new pictures in a burst: each call is a few milliseconds, the redraws
        // are a quarter of a second apart, so far fewer NewIcons than pictures.
        newIcons = 0
        for percent in 0..<100 { try manager("SetFraction", [.string("copy"), .double(Double(percent) / 100)]) }
        waitForToolTip { title, _ in title.contains("99 percent") }
        BusConnection.drain()
        XCTAssertGreaterThanOrEqual(newIcons, 1)
        XCTAssertLessThan(newIcons, 50, "NewIcon is paced, not sent for every picture")
        print("tray: \(newIcons) NewIcon for 100 pictures in a burst")
        // The last picture is the one hosts read.
        let image = try XCTUnwrap(try pixmaps().first { $0.width == 48 })
        XCTAssertEqual(pixel(image, 5, 24)[0], 255, "99 % fills nine o'clock")
    }

    func testAnIndeterminateTaskGetsThePulseLook() throws {
        let watcher = try watcher()
        try start("scan", [("indeterminate", .bool(true))])
        event(watcher, "register")
        let image = try XCTUnwrap(try pixmaps().first { $0.width == 48 })
        // The pulse is a quarter arc from half past one: twelve o'clock (where every
        // determinate ring starts) is track, three o'clock is filled.
        XCTAssertLessThan(pixel(image, 24, 5)[0], 200)
        XCTAssertEqual(pixel(image, 42, 24)[0], 255)
    }
}
