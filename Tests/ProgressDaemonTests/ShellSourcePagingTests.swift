import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// The GNOME Shell extension's reader (gnome-shell/shared/progressSource.js, run by gjs as the
/// shell runs it) reads every task when one Changes reply may not carry them: progressd refuses
/// Changes(0) with LimitExceeded, and the reader takes the Serial, then every page, then polls
/// Changes from that Serial. A lowered --max-reply-values stands for the default: 200 tasks of
/// the extension's 14 properties pass 4,096 values, as 2,222 tasks pass the default's 131,072.
final class ShellSourcePagingTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-reply-values", "4096"] }

    static var shared: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("gnome-shell/shared")
    }

    /// Prints "refused NAME" for Changes(0) of the extension's properties called directly, then
    /// one line per 'changes' the reader delivers: "changes RESET COUNT FIRST KEYS ADDED".
    static func script(shared: URL) -> String {
        """
        import Gio from 'gi://Gio';
        import GLib from 'gi://GLib';
        import {ProgressSource} from '\(shared.appendingPathComponent("progressSource.js").absoluteString)';
        import {PROPERTIES} from '\(shared.appendingPathComponent("taskModel.js").absoluteString)';

        const connection = Gio.DBus.session;
        const loop = new GLib.MainLoop(null, false);
        const manager = ['org.progressd.Progress1', '/org/progressd/Progress1', 'org.progressd.Progress1.Manager'];
        try {
            connection.call_sync(...manager, 'Changes', new GLib.Variant('(ta{sv})', [0, {
                properties: new GLib.Variant('as', PROPERTIES)}]), null, 0, -1, null);
            print('answered');
        } catch (error) {
            print(`refused ${Gio.DBusError.get_remote_error(error)}`);
        }
        let source;
        const onChanges = (kind, ...args) => {
            if (kind !== 'changes')
                return;
            const [reset, tasks] = args;
            const names = Object.keys(tasks).sort();
            const keys = Object.keys(tasks[names[0]] ?? {}).length;
            print(`changes ${reset} ${names.length} ${names[0]} ${keys} ${'zz-after' in tasks}`);
            if (!reset) {
                loop.quit();
                return;
            }
            connection.call_sync(...manager, 'Start', new GLib.Variant('(sa{sv})', ['zz-after', {}]), null, 0, -1,
                null);
            source.poll();
        };
        source = new ProgressSource(connection, {properties: PROPERTIES, overallSteps: () => [82, 100], locale: '',
            onChanges});
        source.start();
        GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 30, () => {
            print('timed out');
            loop.quit();
        });
        loop.run();
        source.stop();
        """
    }

    func testTheExtensionReadsInPagesWhatOneChangesReplyCanNotCarry() throws {
        try startTasks((0..<200).map { String(format: "t%03d", $0) })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("read.js")
        try Self.script(shared: Self.shared).write(to: script, atomically: true, encoding: .utf8)
        let result = try CommandResult.run("/usr/bin/gjs", ["-m", script.path], environment: bus.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        let lines = result.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            "refused org.progressd.Progress1.Error.LimitExceeded",
            // Every task, once, with the 14 properties asked for.
            "changes true 200 t000 14 false",
            // The poll from the Serial read before the pages brings what came after them.
            "changes false 1 zz-after 14 true",
        ], result.errors)
    }
}
