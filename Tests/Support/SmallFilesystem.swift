import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A real, small filesystem for a state directory, and the faults a user's disk has: full,
/// failing with EIO, remounted read-only. Mounting needs root: without it the test skips,
/// except under CI=true, where it fails (CI runs as root, so a skip there hides a fault).
///
/// - `ext4(bytes:)`: an ext4 image on a loop device (`mount -o loop`), as the issue's repro.
/// - `tmpfs(bytes:)`: a size-limited tmpfs.
/// - `failWrites()` (ext4 only): the loop device is cut short (`truncate` of its image, then
///   `losetup -c`), so every data block past the cut is "beyond end of device" and the
///   kernel fails its write with EIO
///   (fsync and fdatasync answer EIO). `healWrites()` puts it back as it was. Device-mapper's
///   `error` target would do the same, but the kernel here has no device-mapper.
public final class SmallFilesystem {
    public let mountPoint: URL
    private let scratch: URL
    private let image: URL?
    private var loopDevice: String?
    private var mounted = false
    private var imageBytes = 0

    /// Skips (or, under CI=true, fails) when the test can not mount.
    public static func requireRoot() throws {
        guard geteuid() != 0 else { return }
        if let ci = ProcessInfo.processInfo.environment["CI"], ci == "true" {
            throw TestSupportError("a storage fault test needs root to mount a small filesystem, and CI runs as root")
        }
        throw XCTSkip("mounting a small filesystem needs root")
    }

    private init(kind: String) throws {
        try Self.requireRoot()
        scratch = Scratch.directory("progressd-\(kind)")
        mountPoint = scratch.appendingPathComponent("state")
        image = kind == "ext4" ? scratch.appendingPathComponent("image") : nil
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
    }

    /// An ext4 filesystem of `bytes` on a loop device, as `truncate -s; mkfs.ext4 -q; mount -o loop`,
    /// with `options` for mount.
    public static func ext4(bytes: Int, options: String = "") throws -> SmallFilesystem {
        let filesystem = try SmallFilesystem(kind: "ext4")
        let image = filesystem.image!
        filesystem.imageBytes = bytes
        try shell("truncate -s \(bytes) '\(image.path)' && mkfs.ext4 -q '\(image.path)'")
        let device = try shell("losetup --find --show '\(image.path)'")
        filesystem.loopDevice = device.trimmingCharacters(in: .whitespacesAndNewlines)
        filesystem.options = options
        try filesystem.mount()
        return filesystem
    }

    private var options = ""

    private func mount() throws {
        guard let loopDevice else { return }
        try Self.shell("mount \(options.isEmpty ? "" : "-o \(options)") '\(loopDevice)' '\(mountPoint.path)'")
        mounted = true
    }

    /// What the kernel does on a metadata error of a filesystem mounted errors=remount-ro:
    /// ext4's test hook (`/sys/fs/ext4/DEV/trigger_fs_error`) reports an error, the journal
    /// aborts and the filesystem is read-only (EROFS) from then on. (`mount -o remount,ro`
    /// itself is refused with EBUSY while a file is open for writing, as progressd's journal is.)
    public func failIntoReadOnly() throws {
        guard let loopDevice else { throw TestSupportError("failIntoReadOnly needs an ext4 image") }
        let device = URL(fileURLWithPath: loopDevice).lastPathComponent
        try Self.shell("echo storage-fault-test > /sys/fs/ext4/\(device)/trigger_fs_error")
    }

    /// What a person does about it: unmount (lazily: progressd still holds its old journal)
    /// and mount again, the journal replayed.
    public func mountAgain() throws {
        try Self.shell("umount -l '\(mountPoint.path)'")
        mounted = false
        try mount()
    }

    /// A tmpfs of at most `bytes`.
    public static func tmpfs(bytes: Int) throws -> SmallFilesystem {
        let filesystem = try SmallFilesystem(kind: "tmpfs")
        try shell("mount -t tmpfs -o size=\(bytes),mode=0700 tmpfs '\(filesystem.mountPoint.path)'")
        filesystem.mounted = true
        return filesystem
    }

    deinit { remove() }

    /// Unmounts and deletes everything; safe to call twice.
    public func remove() {
        if mounted { _ = try? Self.shell("umount '\(mountPoint.path)' || umount -l '\(mountPoint.path)'") }
        mounted = false
        if let loopDevice { _ = try? Self.shell("losetup -d '\(loopDevice)'") }
        loopDevice = nil
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Bytes a user may still write.
    public var freeBytes: Int {
        var status = statvfs()
        guard statvfs(mountPoint.path, &status) == 0 else { return 0 }
        return Int(status.f_bavail) * Int(status.f_frsize)
    }

    /// Fills the filesystem with a file until a write fails with ENOSPC (the blocks ext4
    /// keeps for root included: the tests run as root), then gives `leaving` bytes back.
    public func fill(leaving: Int = 0) throws {
        let filler = mountPoint.appendingPathComponent("filler")
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw TestSupportError("can not create \(filler.path)") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x61, count: 1024)
        var size = 0
        // ext4 refuses a write while its delayed allocations might need the space, and has
        // it again once they are synced: rounds until a synced round takes nothing.
        while true {
            var round = 0
            while true {
                let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, block.count) }
                if written <= 0 { break }
                round += written
            }
            fsync(descriptor)
            size += round
            if round == 0 { break }
        }
        ftruncate(descriptor, off_t(max(0, size - leaving)))
        fsync(descriptor)
    }

    /// Removes what `fill` wrote.
    public func freeSpace() throws {
        try? FileManager.default.removeItem(at: mountPoint.appendingPathComponent("filler"))
        sync()
    }

    public func remountReadOnly() throws { try Self.shell("mount -o remount,ro '\(mountPoint.path)'") }
    public func remountWritable() throws { try Self.shell("mount -o remount,rw '\(mountPoint.path)'") }

    /// Every block past the first MiB fails with EIO from now on: the loop device is cut
    /// there (`truncate` of its image, then `losetup -c`), and what the image held past it
    /// is kept aside for `healWrites`. A 4 MiB ext4 keeps its metadata and journal in that
    /// first MiB and files' data after it, so reads and the filesystem's own writes go on.
    public func failWrites() throws {
        guard let image, let loopDevice else { throw TestSupportError("failWrites needs an ext4 image") }
        sync()
        try Self.shell(
            "dd if='\(image.path)' of='\(image.path).tail' bs=64k skip=16 status=none && truncate -s 1M '\(image.path)'"
                + " && losetup -c '\(loopDevice)'")
    }

    /// The device is its whole size again, with what it held.
    public func healWrites() throws {
        guard let image, let loopDevice else { return }
        try Self.shell(
            "dd if='\(image.path).tail' of='\(image.path)' bs=64k seek=16 conv=notrunc status=none"
                + " && truncate -s \(imageBytes) '\(image.path)' && losetup -c '\(loopDevice)'")
    }

    /// Runs `command` with sh; throws with its output when it fails.
    @discardableResult
    static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw TestSupportError("\(command): \(text)") }
        return text
    }
}
