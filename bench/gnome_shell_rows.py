"""make bench's gnome_shell rows: what progressd's GNOME Shell extension costs the shell while
100 tasks move, in two shells: this machine's (Debian 12's GNOME Shell 43, the extension's
43/44 form) and Debian 13's GNOME Shell 48 (the 45-and-later form), run inside the Debian 13
root the Makefile makes (scripts/debian13-root.sh), on a throwaway overlay of it
(scripts/in-root.sh). progressd and the load client run on this machine in both, on the
shell's private bus; the shell's CPU is read from this machine's /proc (the root shares its
process ids).

run-bench.py calls `rows(bench)` with itself as `bench`, for its Bus, Server, load client and
statistics."""

import os
import re
import resource
import shutil
import subprocess
import tempfile
import time

REPOSITORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# GnomeShellInteropTests' test-only extensions that turn on unsafe mode, so that Eval (which
# opens the menu) answers; in both shells of a pair, so that they differ only in progressd's.
HELPERS = os.path.join(REPOSITORY, "Tests", "ProgressInteropTests", "helpers")
EXTENSION = "progressd@progressd.org"
# The shell's loads, measured one after the other in the same shell: the flood as it has
# always been (each task sweeps 0 to 1 every second, so the overall fraction does too and
# the ring moves many pixels at every redraw), and tasks that move forward as transfers do
# (0.1 % an update, the overall 1 % a second: the ring moves a pixel every 2.5 s); menu
# closed, then open. Each: (name, menu open, load-client flood's STEP and FROM or None).
PHASES = [("sweep, closed", False, None), ("forward, closed", False, (0.001, 0.2)),
          ("forward, open", True, (0.001, 0.25)), ("sweep, open", True, None)]
GOALS = {"sweep, closed": "report (the ring moves at every redraw)", "forward, closed": "<= +1 % of a core",
         "forward, open": "<= +3 % of a core", "sweep, open": "report"}
SETTLE_SECONDS = 2
WARM_UP_SECONDS = 6
# By its path: dbus-daemon runs an activation file's Exec= without looking in PATH.
NSENTER = shutil.which("nsenter") or "/usr/bin/nsenter"
SERVICES = ["ca.desrt.dconf", "org.a11y.Bus", "org.gnome.Shell.Extensions", "org.gnome.Shell.Notifications"]


class HostShell:
    """This machine's GNOME Shell (Debian 12's 43): its programs run as they are."""
    title = "gnome-shell 43 (Debian 12)"
    extension = os.path.join(REPOSITORY, ".build", "gnome-shell-43", EXTENSION)
    unsafe_mode = "unsafe-mode@progressd.test"
    root = "/"

    def missing(self):
        """Why the rows cannot run here, or None."""
        if not (shutil.which("gnome-shell") and shutil.which("gsettings")):
            return "no gnome-shell or gsettings on this machine"
        return None if os.path.isdir(self.extension) else f"no {self.extension} (make extension-forms)"

    def start(self, bench):
        pass

    def stop(self):
        pass

    def command(self, arguments):
        return arguments

    def environment(self, environment):
        return environment

    def write_services(self, directory):
        """The activation files of the shell's helpers, from this shell's system, into `directory`."""
        for service in SERVICES:
            with open(os.path.join(self.root, "usr/share/dbus-1/services", f"{service}.service")) as source:
                lines = source.read().splitlines()
            with open(os.path.join(directory, f"{service}.service"), "w") as out:
                out.write("".join(self.service_line(line) + "\n" for line in lines))

    def service_line(self, line):
        return line


class Debian13Shell(HostShell):
    """Debian 13's GNOME Shell 48, inside a throwaway overlay of the Debian 13 root: a holder
    process keeps the overlay's mount namespace (scripts/in-root.sh), and every program of the
    shell's system (gsettings, the shell, the helpers the bus activates) enters it with
    nsenter, as Tests/ProgressInteropTests/Debian13System.swift does. The machine's /tmp is
    seen inside, so the bus's socket and the scratch folders keep their paths."""
    title = "gnome-shell 48 (Debian 13 root)"
    extension = os.path.join(REPOSITORY, ".build", "gnome-shell-45", EXTENSION)
    unsafe_mode = "unsafe-mode45@progressd.test"

    def __init__(self):
        self.root = os.environ.get("PROGRESSD_DEBIAN13_ROOT", os.path.join(REPOSITORY, ".build", "debian13", "root"))
        self.holder = None
        self.pid = None

    def missing(self):
        if not os.path.exists(self.root + ".stamp"):
            return f"no Debian 13 root at {self.root} (make bench makes it: scripts/debian13-root.sh)"
        if os.geteuid() != 0:
            return "the Debian 13 root's overlay and chroot need root"
        if not os.path.isfile(os.path.join(self.root, "usr/bin/gnome-shell")):
            return f"no gnome-shell in {self.root}"
        return None if os.path.isdir(self.extension) else f"no {self.extension} (make extension-forms)"

    def start(self, bench):
        self.holder = subprocess.Popen(
            ["sh", os.path.join(REPOSITORY, "scripts", "in-root.sh"), self.root, "--", "/bin/sh", "-c",
             'echo "$$"; read -r _'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, preexec_fn=bench.die_with_parent)
        line = self.holder.stdout.readline().strip()
        if not line.isdigit():
            raise RuntimeError("the Debian 13 root did not start")
        self.pid = line

    def stop(self):
        if self.holder:
            self.holder.stdin.close()  # the holder's read ends, and with it the namespace
            self.holder.wait()

    def command(self, arguments):
        # nsenter without a pid namespace does not fork: the process is the program itself.
        return [NSENTER, "-t", self.pid, "-m", "-r", "-w", "--", *arguments]

    def environment(self, environment):
        """What the root's programs get: their PATH, nothing of this machine's libraries."""
        environment = dict(environment, PATH="/usr/sbin:/usr/bin:/sbin:/bin")
        environment.pop("LD_LIBRARY_PATH", None)
        return environment

    def service_line(self, line):
        return "Exec=" + " ".join(self.command(["/usr/bin/env", line[len("Exec="):]])) if line.startswith("Exec=") \
            else line


def shell_cpu_under_load(bench, shell, with_extension, seconds):
    """`shell` headless on a bus of its own (also its system bus), with progressd's extension
    enabled or not, and progressd with 100 tasks updated 10 times a second each (1,000
    SetFraction a second, no replies): the shell's CPU, percent of a core, over `seconds` of
    each load of PHASES, by name, and its frames a second."""
    scratch = tempfile.mkdtemp(prefix="progressd-bench-shell-")
    dirs = {name: os.path.join(scratch, name) for name in ("home", "run", "config", "data", "cache", "services")}
    for path in dirs.values():
        os.makedirs(path, mode=0o700)
    shell.write_services(dirs["services"])
    extensions = os.path.join(dirs["data"], "gnome-shell", "extensions")
    shutil.copytree(shell.extension, os.path.join(extensions, EXTENSION))
    shutil.copytree(os.path.join(HELPERS, shell.unsafe_mode), os.path.join(extensions, shell.unsafe_mode))
    open(os.path.join(dirs["data"], "gnome-shell", "lock-warning-shown"), "w").close()
    config = os.path.join(scratch, "bus.conf")
    with open(config, "w") as out:
        out.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir={scratch}</listen><auth>EXTERNAL</auth>
<servicedir>{dirs["services"]}</servicedir><policy context="default"><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/><allow own="*"/></policy></busconfig>""")
    env = dict(os.environ, HOME=dirs["home"], XDG_RUNTIME_DIR=dirs["run"], XDG_CONFIG_HOME=dirs["config"],
               XDG_DATA_HOME=dirs["data"], XDG_CACHE_HOME=dirs["cache"], XDG_DATA_DIRS="/usr/share",
               LIBGL_ALWAYS_SOFTWARE="1", LC_ALL="C.UTF-8")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)

    def quiet_child():
        bench.die_with_parent()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # 43 segfaults on SIGTERM, every time

    # Started with the scratch folders, so what it activates (dconf-service) uses them too.
    bus = bench.Bus(config=config, environment=shell.environment(env))
    bus.env = dict(env, DBUS_SESSION_BUS_ADDRESS=bus.address, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    inside = shell.environment(bus.env)
    load_client = os.path.join(bench.BUILD, "load-client")
    process = server = None

    def shell_eval(code):
        return subprocess.run(["gdbus", "call", "--session", "-d", "org.gnome.Shell", "-o", "/org/gnome/Shell", "-m",
                               "org.gnome.Shell.Eval", code], env=bus.env, capture_output=True, text=True).stdout

    try:
        enabled = f"['{EXTENSION}', '{shell.unsafe_mode}']" if with_extension else f"['{shell.unsafe_mode}']"
        subprocess.run(shell.command(["gsettings", "set", "org.gnome.shell", "enabled-extensions", enabled]),
                       env=inside, check=True)
        process = subprocess.Popen(
            shell.command(["gnome-shell", "--headless", "--virtual-monitor", "1280x800", "--wayland", "--no-x11"]),
            env=inside, stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "shell.log"), "w"),
            preexec_fn=quiet_child)
        subprocess.run([load_client, "owner", "org.gnome.Shell.Screenshot"], env=bus.env, check=True,
                       capture_output=True, timeout=120)
        deadline = time.monotonic() + 60
        while "true" not in shell_eval("Main.overview.hide(); Main.overview.visible === false"):
            if time.monotonic() > deadline:
                log = open(os.path.join(scratch, "shell.log")).read()
                raise RuntimeError("the shell's Eval did not answer: " + log[-500:])
            time.sleep(0.5)
        server = bench.Server(bus, "progressd")
        bench.load(bus, "start", bench.PROGRESSD, 100)
        time.sleep(3)  # the shell's own start-up work (the overview's animation) is over
        # The menu's first opening costs once what an open menu then does not: in GNOME Shell
        # 48 (llvmpipe) one frame took 150 to 300 ms of the main thread 2 to 4 s after it,
        # half of it in LLVM. Both sides of a pair first run the same warm-up, the menu open
        # (where there is one) under the forward load, then closed: the rows measure the
        # steady cost.
        menu = "Main.panel.statusArea['progressd'].menu"
        if with_extension and "true" not in shell_eval(f"{menu}.open(false); {menu}.isOpen"):
            raise RuntimeError("the extension's menu did not open")
        forward_open = next(load for name, _, load in PHASES if name == "forward, open")
        warm_up = ["flood", bench.PROGRESSD, 1000, WARM_UP_SECONDS, 100, *forward_open]
        if subprocess.run([load_client, *map(str, warm_up)], env=bus.env, stdout=subprocess.DEVNULL,
                          timeout=120).returncode != 0:
            raise RuntimeError("the load client's warm-up flood failed")
        if with_extension:
            shell_eval(f"{menu}.close(false); true")
        used = {}
        for name, menu_open, forward in PHASES:
            if menu_open and with_extension and "true" not in shell_eval(f"{menu}.open(false); {menu}.isOpen"):
                raise RuntimeError("the extension's menu did not open")
            # The load runs SETTLE_SECONDS before the shell is measured, so that what the
            # change of load costs once (the menu's first rows and layout, the ring's jump from
            # the last phase's fractions, that phase's garbage) is not counted as its steady cost.
            arguments = ["flood", bench.PROGRESSD, 1000, SETTLE_SECONDS + seconds, 100, *(forward or ())]
            flood = subprocess.Popen([load_client, *map(str, arguments)], env=bus.env, stdout=subprocess.DEVNULL,
                                     preexec_fn=bench.die_with_parent)
            time.sleep(SETTLE_SECONDS)
            shell_eval("global._progressdBenchFrames = 0; global._progressdBenchPaint ??= "
                       "global.stage.connect('after-paint', () => global._progressdBenchFrames++); true")
            before = bench.Server._stat_cpu_seconds(f"/proc/{process.pid}/stat")
            began = time.monotonic()
            time.sleep(seconds)
            spent = bench.Server._stat_cpu_seconds(f"/proc/{process.pid}/stat") - before
            elapsed = time.monotonic() - began
            frames = re.search(r"'(\d+)'", shell_eval("global._progressdBenchFrames"))
            used[name] = spent / elapsed * 100
            used[name + " frames/s"] = int(frames.group(1)) / elapsed if frames else float("nan")
            if flood.wait(timeout=60) != 0:
                raise RuntimeError("the load client's flood failed")
        return used
    finally:
        if server:
            server.stop()
        if process:
            process.terminate()
            process.wait()
        bus.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def shell_rows(bench, shell):
    """`shell` with and without the extension, in turns, round by round: a row a phase, or
    one that says why there is none."""
    reason = shell.missing()
    if reason:
        return [(f"{shell.title}: skipped, {reason}", None, None, "lower", "-")]
    seconds = 5 if bench.QUICK else 10
    cpu = {True: [], False: []}
    load_before = os.getloadavg()[0]
    shell.start(bench)
    try:
        for round_number in range(bench.REPEATS):
            for with_extension in bench.in_turns([True, False], round_number):
                cpu[with_extension].append(shell_cpu_under_load(bench, shell, with_extension, seconds))
    finally:
        shell.stop()
    load_average = (load_before + os.getloadavg()[0]) / 2
    rows = []
    for name, _, _ in PHASES:
        ours = bench.median([phases[name] for phases in cpu[True]])
        theirs = bench.median([phases[name] for phases in cpu[False]])
        frames = [bench.median([phases[name + " frames/s"] for phases in cpu[side]]) for side in (True, False)]
        rows.append((f"{shell.title} CPU % of a core, 100 tasks updated 10x/s each ({seconds} s after "
                     f"{SETTLE_SECONDS} s, after a {WARM_UP_SECONDS} s warm-up with the menu open), {name}: "
                     "with progressd's extension vs without (rounds in turns; "
                     f"+{ours - theirs:.1f} %; frames/s {frames[0]:.1f} vs {frames[1]:.1f}; load average "
                     f"{load_average:.1f})",
                     ours, theirs, "lower", GOALS[name]))
    return rows


def rows(bench):
    return shell_rows(bench, HostShell()) + shell_rows(bench, Debian13Shell())
