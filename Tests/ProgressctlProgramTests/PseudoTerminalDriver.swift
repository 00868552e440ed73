import Foundation
import ProgressTestSupport

/// A terminal of the test's own, independent of progressctl's code: Python's `pty` and
/// `termios` modules run a program on a new pseudo-terminal (24 rows, 80 columns, the
/// kernel's default mode), collect everything it writes, and act when a text appears in
/// its output: resize the window, send a signal, type keys. When the program stops
/// (Ctrl-Z) the driver notes the terminal's mode and continues it. It reports the output,
/// the exit status and the terminal's mode before, during (at the first action), while
/// stopped, and after.
struct PseudoTerminalDriver {
    struct Step: Encodable {
        var when: String
        var resize: [Int]? = nil
        var signal: Int32? = nil
        var send: String? = nil
    }

    struct Report: Decodable {
        let output: String
        let status: Int
        let before: String
        let during: String?
        let stopped: String?
        let after: String
    }

    static let script = #"""
        import base64, fcntl, json, os, select, signal, struct, sys, termios, time
        spec = json.loads(sys.argv[1])
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        pid = os.fork()
        if pid == 0:
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for target in (0, 1, 2):
                os.dup2(slave, target)
            os.execvp(spec["command"][0], spec["command"])
        mode = lambda: repr(termios.tcgetattr(master))
        report = {"before": mode(), "during": None, "stopped": None}
        output, steps, status = b"", list(spec["steps"]), None
        deadline = time.time() + spec.get("timeout", 60)
        while time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                output += os.read(master, 65536)
            for step in [s for s in steps if s["when"].encode() in output]:
                steps.remove(step)
                report["during"] = report["during"] or mode()
                if step.get("resize"):
                    fcntl.ioctl(master, termios.TIOCSWINSZ, \#
        struct.pack("HHHH", step["resize"][0], step["resize"][1], 0, 0))
                if step.get("signal"):
                    os.kill(pid, step["signal"])
                if step.get("send"):
                    os.write(master, step["send"].encode())
            if status is None:
                done, raw = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
                if done and os.WIFSTOPPED(raw):
                    # progressctl gives the terminal back before it stops itself: stopped, it has.
                    report["stopped"] = mode()
                    os.kill(pid, signal.SIGCONT)
                elif done:
                    status = os.WEXITSTATUS(raw) if os.WIFEXITED(raw) else -os.WTERMSIG(raw)
                    deadline = min(deadline, time.time() + 0.5)
            elif not ready:
                break
        if status is None:
            os.kill(pid, signal.SIGKILL)
            status = -999
        report.update(output=base64.b64encode(output).decode(), status=status, after=mode())
        print(json.dumps(report))
        """#

    /// Runs `command` on the driver's terminal with `environment`, acting on `steps`.
    static func run(_ command: [String], steps: [Step] = [], environment: [String: String]) throws -> (Report, Data) {
        struct Spec: Encodable {
            let command: [String]
            let steps: [Step]
        }
        let spec = String(decoding: try JSONEncoder().encode(Spec(command: command, steps: steps)), as: UTF8.self)
        let result = try CommandResult.run("/usr/bin/python3", ["-c", script, spec], environment: environment)
        guard result.status == 0,
              let report = try? JSONDecoder().decode(Report.self, from: Data(result.output.utf8)) else {
            throw TestSupportError("the terminal driver failed: \(result.errors)")
        }
        return (report, Data(base64Encoded: report.output) ?? Data())
    }
}
