#!/usr/bin/env python3
"""make bench: progressd against a minimal C GDBus server (bench/reference) on the same
private bus, driven by the same libdbus load client (bench/load). Every figure is a
median of several runs, printed beside the reference's and as a ratio.

Usage: run-bench.py BUILD_DIR [--quick] [--accessibility-only] [--only=GROUP,...]
GROUP is a rows_for_GROUP below (calls, sandboxed_caller, fairness, paging, big_reads, read_turns, gnome_shell, ...).
BUILD_DIR holds progressd (release), reference-server and load-client. The gnome_shell rows
(bench/gnome_shell_rows.py) also run GNOME Shell 48 in the Debian 13 root that
PROGRESSD_DEBIAN13_ROOT names (make bench's, .build/debian13/root, by default)."""

import ctypes
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import gnome_shell_rows

BUILD = sys.argv[1]
QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 5
# The per-call CPU rows have goals within a few percent, about as much as this machine's
# noise moves one round: they take more rounds, each in turns.
CALL_ROUNDS = 3 if QUICK else 7
PROGRESSD = "org.progressd.Progress1"
REFERENCE = "org.progressd.Reference"
LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
TICKS = os.sysconf("SC_CLK_TCK")


def die_with_parent():
    # PR_SET_PDEATHSIG: nothing this benchmark starts outlives it.
    LIBC.prctl(1, signal.SIGKILL)


class Bus:
    """A private dbus-daemon: the session configuration, or `config` (a file) run with `environment`."""

    def __init__(self, config=None, environment=None):
        self.process = subprocess.Popen(
            ["dbus-daemon", f"--config-file={config}" if config else "--session", "--nofork", "--nopidfile",
             "--print-address=1"],
            env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent,
            text=True)
        self.address = self.process.stdout.readline().strip()
        self.env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.address, LC_ALL="C.UTF-8")

    def stop(self):
        self.process.kill()
        self.process.wait()


def in_turns(order, round_number):
    """`order` forwards in even rounds and backwards in odd ones, so that neither side always
    runs first on a machine that drifts."""
    return order if round_number % 2 == 0 else order[::-1]


def load(bus, *arguments):
    out = subprocess.run([os.path.join(BUILD, "load-client"), *map(str, arguments)], env=bus.env,
                         capture_output=True, text=True, check=True).stdout
    values = {}
    for word in out.split():
        if "=" in word:
            key, value = word.split("=", 1)
            values[key] = float(value)
    for key in ("snapshot_ms", "changes_ms", "selective_ms"):
        if f"{key}=" in out:
            values[key] = [float(x) for x in out.split(f"{key}=")[1].split()]
    return values


class Server:
    """progressd or the reference, started on `bus`; `started` is from exec to name owned."""

    def __init__(self, bus, kind, signals=False, on_disk=False, environment=None, program=None, empty_replies=False,
                 arguments=()):
        self.kind = kind
        self.name = PROGRESSD if kind == "progressd" else REFERENCE
        watcher = subprocess.Popen([os.path.join(BUILD, "load-client"), "owner", self.name], env=bus.env,
                                   stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
        time.sleep(0.05)  # the watcher is connected
        # On /dev/shm the figures are the daemon's, not the disk's; on_disk puts the state on
        # the build directory's real disk, for what a sync costs.
        place = BUILD if on_disk else ("/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.state = tempfile.mkdtemp(prefix="progressd-bench-", dir=place)
        if kind == "progressd":
            command = [program or os.path.join(BUILD, "progressd"), "--state-directory", self.state,
                       "--max-tasks", "200000", "--max-tasks-per-caller", "200000", *arguments]
        else:
            command = [os.path.join(BUILD, "reference-server")] + (["--signals"] if signals else [])
            command += ["--empty-replies"] if empty_replies else []
            if on_disk:
                command += ["--fsync", os.path.join(self.state, "journal")]
        began = time.monotonic()
        self.process = subprocess.Popen(command, env=dict(bus.env, **(environment or {})), stderr=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)
        owned = float(watcher.stdout.readline().split("=")[1])
        watcher.wait()
        self.started = owned - began

    def cpu_seconds(self):
        return self._stat_cpu_seconds(f"/proc/{self.process.pid}/stat")

    def main_thread_cpu_seconds(self):
        """The main loop's thread alone (its thread id is the process id); the rest of a
        call's CPU is GDBus's worker thread, reading and writing the socket."""
        return self._stat_cpu_seconds(f"/proc/{self.process.pid}/task/{self.process.pid}/stat")

    @staticmethod
    def _stat_cpu_seconds(path):
        """User plus system time from a /proc stat file (the fields after the command's name)."""
        fields = open(path).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def rss(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        self.process.terminate()
        self.process.wait()
        subprocess.run(["rm", "-rf", self.state])


def median(values):
    return statistics.median(values)


def rows_for_calls(bus):
    # Both references own the same name, so the one answering as progressd does (a reply
    # with no body) runs on a bus of its own, with the same load: progressd against it is
    # what progressd's own layers cost, the reply aside.
    empty_bus = Bus()
    servers = {"progressd": Server(bus, "progressd"), "reference": Server(bus, "reference"),
               "reference, empty replies": Server(empty_bus, "reference", empty_replies=True)}
    buses = {"progressd": bus, "reference": bus, "reference, empty replies": empty_bus}
    try:
        for kind, server in servers.items():
            load(buses[kind], "start", server.name, 1)  # the task t0 the calls update
        modes = [("SetFraction calls/s, one at a time", ["call", 5000 if QUICK else 20000]),
                 ("SetFraction calls/s, 64 in flight", ["pipeline", 20000 if QUICK else 50000, 64]),
                 ("SetFraction calls/s, no reply expected", ["noreply", 20000 if QUICK else 50000])]
        rows = []
        for title, arguments in modes:
            rates = {kind: [] for kind in servers}
            cpu = {kind: [] for kind in servers}
            main_cpu = {kind: [] for kind in servers}
            for round_number in range(CALL_ROUNDS):
                for kind, server in in_turns(list(servers.items()), round_number):
                    before, main_before = server.cpu_seconds(), server.main_thread_cpu_seconds()
                    result = load(buses[kind], arguments[0], server.name, *arguments[1:])
                    rates[kind].append(result["rate"])
                    cpu[kind].append((server.cpu_seconds() - before) / result["calls"] * 1e6)
                    main_cpu[kind].append((server.main_thread_cpu_seconds() - main_before) / result["calls"] * 1e6)
            rows.append((title, median(rates["progressd"]), median(rates["reference"]), "higher", ">= 0.95x"))
            rows.append(("  daemon CPU µs per call (" + arguments[0] + ")", median(cpu["progressd"]),
                         median(cpu["reference"]), "lower", "<= 1.05x"))
            rows.append(("  the same vs the reference replying as progressd does (no body)",
                         median(cpu["progressd"]), median(cpu["reference, empty replies"]), "lower", "(own layers)"))
            rows.append(("  of it the main loop's thread (the rest is GDBus's worker thread)",
                         median(main_cpu["progressd"]), median(main_cpu["reference"]), "lower", "(where it goes)"))
        batch = [load(bus, "batch", PROGRESSD, 20000 if QUICK else 50000, 64)["rate"] for _ in range(REPEATS)]
        single = [r for r in [load(bus, "pipeline", PROGRESSD, 20000, 64)["rate"] for _ in range(REPEATS)]]
        rows.append(("UpdateMany, 64 updates a call: updates/s vs SetFraction 64 in flight",
                     median(batch), median(single), "higher", "(kept if faster)"))
        return rows
    finally:
        for server in servers.values():
            server.stop()
        empty_bus.stop()


def load_lines(bus, *arguments):
    """A load-client run whose output is KEY=number number ...: the lists of numbers by key."""
    out = subprocess.run([os.path.join(BUILD, "load-client"), *map(str, arguments)], env=bus.env,
                         capture_output=True, text=True, check=True).stdout
    return {line.split("=", 1)[0]: [float(x) for x in line.split("=", 1)[1].split()] for line in out.splitlines()
            if "=" in line}


# The stall-seconds of the tasks the paging and polling rows start: starting 100,000 tasks
# takes half a minute here, so with the default 30 s the first ones stall (a change each,
# signalled and saved) while the rows measure reads or other calls.
QUIET_STALL_SECONDS = 3600


# A Snapshot of 10,000 tasks is 1,070,005 values, over the default limit of one reply
# (131,072): a daemon whose rows time one is allowed more.
FULL_SNAPSHOTS = ["--max-reply-values", "2000000"]


def rows_for_paging(bus):
    """SnapshotPage costs what it returns: all of 100,000 tasks a page of 1,000 at a time
    against ten full Snapshots of 10,000 tasks, and the last page against the first. Two
    daemons, one holding each table on a bus of its own, take turns round by round, so
    that both figures of a round see the same machine; the one answering the Snapshots runs
    with --max-reply-values 2000000, the one answering the pages with the default."""
    small_bus = Bus()
    small = large = None
    try:
        small = Server(small_bus, "progressd", arguments=FULL_SNAPSHOTS)
        large = Server(bus, "progressd")
        load(small_bus, "start", small.name, 10000, QUIET_STALL_SECONDS)
        load(bus, "start", large.name, 100000, QUIET_STALL_SECONDS)
        time.sleep(1.5)
        snapshots, totals, first, last = [], [], [], []
        for _ in range(REPEATS):
            snapshots.append(sum(load(small_bus, "snapshot", small.name, 10)["snapshot_ms"]))
            pages = load_lines(bus, "pages", large.name, 1000)["page_ms"]
            totals.append(sum(pages))
            # The first and last ten pages, so that one slow page does not decide it.
            first.append(median(pages[:10]))
            last.append(median(pages[-11:-1]))
        names = median(load_lines(bus, "list", large.name, REPEATS)["list_ms"])
    finally:
        for server in (small, large):
            if server:
                server.stop()
        small_bus.stop()
    return [("SnapshotPage: all 100,000 tasks, 1,000 a page, ms, vs ten full Snapshots of 10,000 tasks (in turns; "
             "those with --max-reply-values 2000000)",
             median(totals), median(snapshots), "lower", "<= 1.2x"),
            ("  SnapshotPage of 1,000 among 100,000 tasks, ms: the last ten pages vs the first ten", median(last),
             median(first), "lower", "<= 1.2x"),
            ("List of 100,000 names, ms (a round trip; no reference)", names, names, "lower", "(was 157 ms)")]


def rows_for_fairness(bus):
    """A fresh process's List while 30 connections of another process poll Changes flat
    out and 2,000 SetFractions a second flow, against the same List on a quiet daemon."""
    samples = 20 if QUICK else 60
    server = Server(bus, "progressd")
    try:
        load(bus, "start", server.name, 1000)
        time.sleep(1.0)

        def lists():
            # Each List from a new process: a new connection, whose identity is learned first.
            return [load_lines(bus, "list", server.name, 1)["list_ms"][0] for _ in range(samples)]

        quiet = lists()
        seconds = 60
        flow = subprocess.Popen([os.path.join(BUILD, "load-client"), "flood", server.name, "2000", str(seconds), "100"],
                                env=bus.env, stdout=subprocess.DEVNULL, preexec_fn=die_with_parent)
        pollers = subprocess.Popen([os.path.join(BUILD, "load-client"), "pollers", server.name, "30", str(seconds)],
                                   env=bus.env, stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
        time.sleep(2.0)
        busy = lists()
        flow.kill()
        pollers.kill()
        flow.wait()
        pollers.wait()
    finally:
        server.stop()
    busy.sort()
    quiet.sort()

    def p99(values):
        return values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]

    return [(f"List from a fresh process, ms, median of {samples}: while 30 connections of another process poll Changes "
             "flat out and 2,000 SetFractions/s flow vs a quiet daemon", median(busy), median(quiet), "lower", "< 50 ms"),
            ("  the same, 99th percentile", p99(busy), p99(quiet), "lower", "< 100 ms")]


def rows_for_big_reads(bus):
    """Another process's small calls while one client reads 100,000 tasks back to back
    (SnapshotPage walks, refused Snapshots and GetManagedObjects, List, Changes from 0):
    a property Get and a poller's Changes with little new, against the same calls on the
    quiet daemon; and what a refused Snapshot costs. Each figure is the median over runs
    of that run's median, 99th percentile or worst."""
    seconds = 8 if QUICK else 15
    server = Server(bus, "progressd")
    try:
        load(bus, "start", server.name, 100000, QUIET_STALL_SECONDS)
        time.sleep(1.5)

        def probes(kind):
            return subprocess.Popen([os.path.join(BUILD, "load-client"), "probe", server.name, str(seconds), kind],
                                    env=bus.env, stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)

        def run(busy):
            reader = None
            if busy:
                reader = subprocess.Popen([os.path.join(BUILD, "load-client"), "reader", server.name, str(seconds + 3)],
                                          env=bus.env, stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
                time.sleep(1.0)
            running = {kind: probes(kind) for kind in ("get", "changes")}
            results = {}
            for kind, process in running.items():
                out, _ = process.communicate()
                results[kind] = sorted(float(x) for x in out.split("probe_ms=")[1].split())
            if reader:
                out, _ = reader.communicate()
                results["refused"] = [float(x) for x in out.split("refused_snapshot_ms=")[1].split("\n")[0].split()]
            return results

        quiet = [run(False) for _ in range(REPEATS)]
        busy = [run(True) for _ in range(REPEATS)]
    finally:
        server.stop()

    def p99(values):
        return values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]

    def figure(runs, kind, statistic):
        return median([statistic(run[kind]) for run in runs])

    rows = []
    for kind, title in (("get", "Get(TaskCount) from another process"),
                        ("changes", "a poller's Changes(serial), little new")):
        rows.append((f"{title}, ms, while one client reads 100,000 tasks back to back vs quiet: median",
                     figure(busy, kind, median), figure(quiet, kind, median), "lower",
                     "(~0.5 ms)" if kind == "changes" else "(1 ms quiet)"))
        rows.append(("  the same, 99th percentile", figure(busy, kind, p99), figure(quiet, kind, p99), "lower",
                     "< 100 ms"))
        rows.append(("  the same, worst", figure(busy, kind, max), figure(quiet, kind, max), "lower", "(was 599 ms)"))
    refused = median([median(run["refused"]) for run in busy if run["refused"]] or [0])
    rows.append(("Snapshot of 100,000 tasks refused (LimitExceeded), ms, vs a quiet Get(TaskCount)",
                 refused, figure(quiet, "get", median), "lower", "(O(1), was ~2,000 ms)"))
    return rows


def rows_for_read_turns(bus):
    """Large reads side by side, in the issue's case of 41,000 tasks, at the default limit of
    one reply (a Snapshot of them is refused; clients read in pages): a SnapshotPage walk of
    every task while another process calls List every 50 ms and a third Get(TaskCount) every
    10 ms, against the same walk and List alone; then the same pollers and walk beside a mix
    of large reads from three more processes: two walking every page back to back, one
    reading every task every way back to back (a walk, Snapshot, GetManagedObjects and
    Changes(0), each refused, and List). Quiet and busy rounds take turns. The pollers'
    figures are each call's round trip while the reads go on, pooled over the rounds."""
    tasks = 41000
    mix_seconds = 8 if QUICK else 15
    server = Server(bus, "progressd")

    def client(*arguments):
        return subprocess.Popen([os.path.join(BUILD, "load-client"), *map(str, arguments)], env=bus.env,
                                stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)

    def read(kind):
        return load_lines(bus, "read", server.name, kind, 1)["read_ms"][0]

    def values(process, key):
        out, _ = process.communicate()
        return [float(x) for x in out.split(key + "=")[1].split("\n")[0].split()] if key + "=" in out else []

    def pollers():
        return [client("probe", server.name, 600, "list", 50), client("probe", server.name, 600, "get", 10)]

    def stop(processes):
        for process in processes:
            process.terminate()

    try:
        load(bus, "start", server.name, tasks, QUIET_STALL_SECONDS)
        time.sleep(1.5)
        quiet = {"pages": [], "list": []}
        walks_beside_polls, walks_in_mix, refused = [], [], []
        lists, gets, mix_lists, mix_gets = [], [], [], []
        for round_number in range(REPEATS):
            for busy in in_turns([False, True], round_number):
                if not busy:
                    for kind in quiet:
                        quiet[kind].append(read(kind))
                    continue
                polling = pollers()
                time.sleep(0.5)
                walks_beside_polls.append(read("pages"))
                time.sleep(0.2)
                stop(polling)
                lists += values(polling[0], "probe_ms")
                gets += values(polling[1], "probe_ms")
                polling = pollers()
                reader = client("reader", server.name, mix_seconds)
                walkers = [client("read", server.name, "pages", 1000) for _ in range(2)]
                time.sleep(1.0)
                walks_in_mix.append(read("pages"))
                refused += values(reader, "refused_snapshot_ms")
                stop(walkers + polling)
                for process in walkers:
                    process.wait()
                mix_lists += values(polling[0], "probe_ms")
                mix_gets += values(polling[1], "probe_ms")
    finally:
        server.stop()

    def p99(values):
        values = sorted(values)
        return values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]

    walk = f"SnapshotPage walk of all {tasks:,} tasks (1,000 a page), ms"
    return [(f"{walk}, while another process calls List every 50 ms and a third Get every 10 ms vs alone "
             "(rounds in turns)", median(walks_beside_polls), median(quiet["pages"]), "lower", "<= 2x"),
            (f"  the poller's List of {tasks:,} names meanwhile, ms: 99th percentile vs alone", p99(lists),
             median(quiet["list"]), "lower", "< 100 ms"),
            ("  Get(TaskCount) from the third process meanwhile, ms: 99th percentile vs median", p99(gets),
             median(gets), "lower", "< 100 ms"),
            (f"The same List every 50 ms beside a mix of large reads (two processes walking every page, a third "
             f"reading every way, Snapshot refused), ms: 99th percentile vs alone", p99(mix_lists),
             median(quiet["list"]), "lower", "< 100 ms"),
            ("  the same, worst", max(mix_lists), median(quiet["list"]), "lower", "(was 2,000 ms)"),
            ("  Get(TaskCount) every 10 ms beside the mix, ms: 99th percentile vs median", p99(mix_gets),
             median(mix_gets), "lower", "< 100 ms"),
            ("  the same, worst", max(mix_gets), median(mix_gets), "lower", "report"),
            (f"  {walk}, in the mix vs alone (four readers share half the main loop)", median(walks_in_mix),
             median(quiet["pages"]), "lower", "report"),
            (f"  Snapshot of {tasks:,} tasks refused (LimitExceeded) in the mix, ms, vs a quiet walk",
             median(refused or [0]), median(quiet["pages"]), "lower", "report")]


def allocator_variants():
    """progressd as built, and with each allocator setting it could have and has not, or
    without the one it has: GLib's slice allocator off (G_SLICE=always-malloc), one malloc
    arena for every thread (a glibc tunable), glibc's sliding mapping threshold (mallopt made
    to do nothing by bench/variants, preloaded); and, when BENCH_VARIANT_PROGRESSD names one,
    a second build (such as one without an exclusivity attribute)."""
    variants = [("as built", {}, None),
                ("G_SLICE=always-malloc", {"G_SLICE": "always-malloc"}, None),
                ("one malloc arena", {"GLIBC_TUNABLES": "glibc.malloc.arena_max=1"}, None),
                ("no mallopt", {"LD_PRELOAD": os.path.join(BUILD, "no-mallopt.so")}, None)]
    other = os.environ.get("BENCH_VARIANT_PROGRESSD")
    if other:
        variants.append((os.environ.get("BENCH_VARIANT_NAME", os.path.basename(other)), {}, other))
    return variants


def rows_for_allocator(bus):
    """Each allocator setting against progressd without it, rounds interleaved: CPU per
    SetFraction (64 in flight, and one at a time), a Snapshot of 10,000 tasks, and what five
    Snapshots in a row leave behind."""
    variants = allocator_variants()
    figures = {name: {"pipeline": [], "call": [], "snapshot": [], "left": []} for name, _, _ in variants}
    calls = 5000 if QUICK else 20000
    for _ in range(REPEATS):
        for name, environment, program in variants:
            server = Server(bus, "progressd", environment=environment, program=program, arguments=FULL_SNAPSHOTS)
            try:
                load(bus, "start", server.name, 10000)
                time.sleep(1.5)
                for mode, arguments in (("pipeline", [calls, 64]), ("call", [calls // 4])):
                    before = server.cpu_seconds()
                    result = load(bus, mode, server.name, *arguments)
                    figures[name][mode].append((server.cpu_seconds() - before) / result["calls"] * 1e6)
                before = server.rss()
                figures[name]["snapshot"].append(median(load(bus, "snapshot", server.name, 5)["snapshot_ms"]))
                time.sleep(1.5)
                figures[name]["left"].append((server.rss() - before) / 2**20)
            finally:
                server.stop()
    base = figures["as built"]
    rows = []
    for name, _, _ in variants[1:]:
        rows.append((f"Allocator: daemon CPU µs per SetFraction, 64 in flight, {name} vs as built",
                     median(figures[name]["pipeline"]), median(base["pipeline"]), "lower", "(kept if lower)"))
        rows.append((f"  one at a time, {name} vs as built", median(figures[name]["call"]), median(base["call"]),
                     "lower", "(kept if lower)"))
        rows.append((f"  Snapshot of 10,000 tasks, ms, {name} vs as built", median(figures[name]["snapshot"]),
                     median(base["snapshot"]), "lower", "(kept if lower)"))
        rows.append((f"  MB left behind by 5 Snapshots of 10,000 tasks, {name} vs as built",
                     median(figures[name]["left"]), median(base["left"]), "lower", "(kept if lower)"))
    return rows


def sandbox_available():
    return (os.access("/usr/bin/bwrap", os.X_OK) and os.access("/usr/bin/xdg-dbus-proxy", os.X_OK)
            and subprocess.run(["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink",
                                "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--",
                                "/usr/bin/true"], capture_output=True).returncode == 0)


def rows_for_sandboxed_caller(bus):
    """Daemon CPU per SetFraction (64 in flight) from a Flatpak-style sandbox (bwrap with a
    /.flatpak-info, xdg-dbus-proxy inside it, as Flatpak runs it), for progressd and the
    reference through the same proxy, rounds interleaved: the identity is learned once."""
    if not sandbox_available():
        return []
    scratch = tempfile.mkdtemp(prefix="progressd-bench-sandbox-")
    info = os.path.join(scratch, "flatpak-info")
    with open(info, "w") as f:
        f.write("[Application]\nname=org.example.Bench\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n")
    socket = bus.address.split(",")[0][len("unix:path="):]
    proxy_dir = os.path.join(scratch, "proxy")
    os.makedirs(proxy_dir)
    proxy = subprocess.Popen(
        ["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
         "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--ro-bind", info, "/.flatpak-info",
         "--bind", os.path.dirname(socket), "/run/host-bus", "--bind", proxy_dir, "/run/proxy", "--unshare-pid",
         "--die-with-parent", "--", "/usr/bin/xdg-dbus-proxy", "unix:path=/run/host-bus/" + os.path.basename(socket),
         "/run/proxy/bus", "--filter", "--talk=" + PROGRESSD, "--talk=" + REFERENCE],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    servers = {}
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(proxy_dir, "bus")):
            if time.monotonic() > deadline or proxy.poll() is not None:
                return []
            time.sleep(0.05)
        sandboxed = Bus.__new__(Bus)
        sandboxed.env = dict(bus.env, DBUS_SESSION_BUS_ADDRESS="unix:path=" + os.path.join(proxy_dir, "bus"))
        servers = {"progressd": Server(bus, "progressd"), "reference": Server(bus, "reference")}
        for server in servers.values():
            load(sandboxed, "start", server.name, 1)
        count = 5000 if QUICK else 20000
        cpu = {kind: [] for kind in servers}
        for round_number in range(CALL_ROUNDS):
            for kind, server in in_turns(list(servers.items()), round_number):
                before = server.cpu_seconds()
                result = load(sandboxed, "pipeline", server.name, count, 64)
                cpu[kind].append((server.cpu_seconds() - before) / result["calls"] * 1e6)
        return [("  daemon CPU µs per SetFraction (64 in flight) from a Flatpak sandbox (through xdg-dbus-proxy)",
                 median(cpu["progressd"]), median(cpu["reference"]), "lower", "<= 1.1x")]
    finally:
        for server in servers.values():
            server.stop()
        proxy.kill()
        proxy.wait()
        subprocess.run(["rm", "-rf", scratch])


def rows_for_flood(bus):
    rows = []
    for tasks in (1, 100):
        progressd = Server(bus, "progressd")
        reference = Server(bus, "reference", signals=True)
        try:
            load(bus, "start", PROGRESSD, tasks)
            per_task = {}
            delivered = {}
            for kind, name in (("progressd", PROGRESSD), ("reference", REFERENCE)):
                listener = subprocess.Popen([os.path.join(BUILD, "load-client"), "listen", "5"], env=bus.env,
                                            stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
                listener.stdout.readline()  # ready
                load(bus, "flood", name, 10000, 3, tasks)
                out = listener.stdout.read()
                listener.wait()
                values = dict(word.split("=") for word in out.split())
                per_task[kind] = int(values["max_per_object"]) / 3
                delivered[kind] = int(values["last_value_delivered"])
            rows.append((f"signals/s per task, 10,000 updates/s over {tasks} task{'s' if tasks > 1 else ''}",
                         per_task["progressd"], per_task["reference"], "lower", "<= 10 (the rate)"))
            rows.append((f"  tasks whose last value (1.0) was signalled, of {tasks}", delivered["progressd"],
                         delivered["reference"], "equal", f"{tasks}"))
        finally:
            progressd.stop()
            reference.stop()
    return rows


def rows_for_memory(bus):
    rows = []
    for count in ((1000, 10000) if QUICK else (1000, 10000, 100000)):
        per_task = {}
        for kind in ("progressd", "reference"):
            server = Server(bus, kind)
            try:
                load(bus, "start", server.name, 1)
                time.sleep(0.3)
                before = server.rss()
                load(bus, "start", server.name, count)
                time.sleep(1.5)  # the once-a-second save has run
                per_task[kind] = (server.rss() - before) / count
            finally:
                server.stop()
        rows.append((f"RSS bytes per idle task, {count:,} tasks", per_task["progressd"], per_task["reference"],
                     "lower", "< 1024 bytes at 100,000"))
    return rows


def rows_for_snapshot_and_start(bus):
    """A full Snapshot of 10,000 tasks from each server. Both hold their tasks side by side
    and take turns round by round, the order alternating, so that both figures of a round
    see the same machine (one after the other, the same build gave 0.88x to 1.21x)."""
    servers = {}
    snapshot = {"progressd": [], "reference": []}
    started = {"progressd": [], "reference": []}
    try:
        for kind in ("progressd", "reference"):
            servers[kind] = Server(bus, kind, arguments=FULL_SNAPSHOTS if kind == "progressd" else ())
            load(bus, "start", servers[kind].name, 10000, QUIET_STALL_SECONDS)
        time.sleep(1.5)
        before = servers["progressd"].rss()
        order = ["progressd", "reference"]
        for round_number in range(REPEATS):
            for kind in in_turns(order, round_number):
                snapshot[kind] += load(bus, "snapshot", servers[kind].name, 3)["snapshot_ms"]
        time.sleep(1.0)
        after = servers["progressd"].rss()
    finally:
        for server in servers.values():
            server.stop()
    for kind in ("progressd", "reference"):
        for _ in range(REPEATS):
            server = Server(bus, kind)
            started[kind].append(server.started * 1000)
            server.stop()
    snapshot = {kind: median(times) for kind, times in snapshot.items()}
    return [("Snapshot of 10,000 tasks, ms (both: the same 26 properties a task; the reference's prepared; in turns)",
             snapshot["progressd"], snapshot["reference"], "lower", "<= 1.2x"),
            ("  progressd's RSS 1 s after those Snapshots vs before them, MB", after / 2**20, before / 2**20,
             "lower", "<= 1.10x (within 10 %)"),
            ("Process start to bus name owned, ms", median(started["progressd"]), median(started["reference"]),
             "lower", "< 100 ms")]


def rows_for_polling(bus):
    """Changes(serial): the cost follows what changed, not how many tasks there are."""
    polls = 300 if QUICK else 1000
    per_poll = {}
    cpu_per_call = {}
    calls = 10000 if QUICK else 20000
    for count in (1000, 100000):
        server = Server(bus, "progressd")
        try:
            load(bus, "start", server.name, count, QUIET_STALL_SECONDS)
            time.sleep(1.5)
            per_poll[count] = median(load(bus, "changes", server.name, polls, 10)["changes_ms"])
            # Updates cost the same among many tasks (Overall, deadlines: nothing walks them all).
            samples = []
            for _ in range(REPEATS):
                before = server.cpu_seconds()
                load(bus, "pipeline", server.name, calls, 64)
                samples.append((server.cpu_seconds() - before) / calls * 1e6)
            cpu_per_call[count] = median(samples)
        finally:
            server.stop()
    server = Server(bus, "progressd", arguments=FULL_SNAPSHOTS)
    try:
        load(bus, "start", server.name, 10000)
        time.sleep(1.5)
        selective = median(load(bus, "selective", server.name, REPEATS)["selective_ms"])
        full = median(load(bus, "snapshot", server.name, REPEATS)["snapshot_ms"])
    finally:
        server.stop()
    return [(f"Changes(serial), 10 tasks changed: ms a poll (round trip, median of {polls}) among 100,000 vs among 1,000 tasks",
             per_poll[100000], per_poll[1000], "lower", "< 1 ms, <= 2x"),
            ("SetFraction, 64 in flight: daemon CPU us a call among 100,000 vs among 1,000 tasks",
             cpu_per_call[100000], cpu_per_call[1000], "lower", "<= 1.2x"),
            ("Changes(0) with 4 properties vs Snapshot (26), 10,000 tasks, ms", selective, full, "lower", "< 100 ms")]


def rows_for_durable_starts(bus):
    """Starts, 64 in flight, with the state on the real disk: progressd's group commit
    against the reference syncing once per Start; and the reference without any sync, the
    most Starts a second any server gets through this bus and load client here."""
    rates = {"progressd": [], "reference": [], "unsynced": []}
    count = 2000 if QUICK else 5000
    for _ in range(REPEATS):
        for kind in ("progressd", "reference"):
            server = Server(bus, kind, on_disk=True)
            try:
                rates[kind].append(load(bus, "start", server.name, count)["rate"])
            finally:
                server.stop()
        server = Server(bus, "reference")
        try:
            rates["unsynced"].append(load(bus, "start", server.name, count)["rate"])
        finally:
            server.stop()
    return [("Start calls/s, 64 in flight, state on the real disk (reference: one fsync a Start)",
             median(rates["progressd"]), median(rates["reference"]), "higher", ">= 5x"),
            ("  the ceiling: the reference with no sync at all vs one a Start (5x above needs this >= 5x)",
             median(rates["unsynced"]), median(rates["reference"]), "higher", "")]


def same_render_images():
    """Both sides write each case's PNG; the comparison only means something if they match."""
    with tempfile.TemporaryDirectory() as swift_dir, tempfile.TemporaryDirectory() as c_dir:
        subprocess.run([os.path.join(BUILD, "render-bench-swift"), "write", swift_dir], check=True)
        subprocess.run([os.path.join(BUILD, "render-bench-c"), "write", c_dir], check=True)
        differing = []
        for name in sorted(os.listdir(c_dir)):
            with open(os.path.join(swift_dir, name), "rb") as ours, open(os.path.join(c_dir, name), "rb") as theirs:
                if ours.read() != theirs.read():
                    differing.append(name)
        return differing


def rows_for_render():
    """progress-render's drawing against plain C drawing the same images (bench/render).
    Rounds of short runs alternate the two programs (and which goes first), so that the
    machine's drift over a run falls on both alike; each figure is the median over rounds."""
    differing = same_render_images()
    if differing:
        print(f"warning: progress-render and bench/render drew different images: {', '.join(differing)}", file=sys.stderr)
    rounds, count = (5, 100) if QUICK else (15, 200)
    results = {"swift": {}, "c": {}}
    for round_number in range(rounds):
        order = (("swift", "render-bench-swift"), ("c", "render-bench-c"))
        for side, program in in_turns(order, round_number):
            out = subprocess.run([os.path.join(BUILD, program), str(count)], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                case, rate = line.split()
                results[side].setdefault(case, []).append(float(rate))
    same = "same PNG bytes" if not differing else "IMAGES DIFFER"
    titles = {"striped-1": "images/s, striped 300x24 with label, scale 1", "striped-2": "images/s, striped 300x24 with label, scale 2",
              "ring-1": "images/s, ring 128x128 with label, scale 1", "ring-2": "images/s, ring 128x128 with label, scale 2"}
    rows = [(f"{titles[case]} ({same}; median of {rounds} rounds)", median(results["swift"][case]),
             median(results["c"][case]), "higher", ">= 0.83x (within 1.2x)") for case in titles]
    encodes = {"encode-ours": [], "encode-cairo": []}
    encodes_per_run = 800 if QUICK else 2000
    sizes = {}
    for _ in range(REPEATS):
        out = subprocess.run([os.path.join(BUILD, "render-bench-c"), str(encodes_per_run), "encoders"],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            name, rate, size = line.split()
            encodes[name].append(float(rate))
            sizes[name] = int(size)
    rows.append((f"PNG encodes/s of a 600x48 image: libpng as set up here ({sizes['encode-ours']} B) vs cairo's writer "
                 f"({sizes['encode-cairo']} B)", median(encodes["encode-ours"]), median(encodes["encode-cairo"]), "higher",
                 "(the pick)"))
    return rows


ATSPI_TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ProgressAccessibilityTests",
                          "python", "atspi_tool.py")


def rows_for_accessibility():
    """Daemon CPU per SetFraction while its tasks are on an accessibility bus, with a pyatspi
    listener for value changes attached against none: what an assistive tool costs."""
    if not (os.access("/usr/libexec/at-spi-bus-launcher", os.X_OK)
            and subprocess.run(["/usr/bin/python3", "-c", "import pyatspi"], capture_output=True).returncode == 0):
        return []
    scratch = tempfile.mkdtemp(prefix="progressd-bench-a11y-")
    for sub in ("home", "runtime"):
        os.makedirs(os.path.join(scratch, sub), mode=0o700)
    bus = Bus()
    bus.env.update(HOME=os.path.join(scratch, "home"), XDG_RUNTIME_DIR=os.path.join(scratch, "runtime"),
                   GSETTINGS_BACKEND="memory", AT_SPI_BUS_ADDRESS="")
    # Unset, not empty: at-spi2-registryd exits when DISPLAY names no display it can open.
    bus.env.pop("DISPLAY", None)
    bus.env.pop("WAYLAND_DISPLAY", None)

    def own_group():
        die_with_parent()
        os.setpgid(0, 0)  # the launcher, its bus and the registry: one group, ended together

    launcher = subprocess.Popen(["/usr/libexec/at-spi-bus-launcher"], env=bus.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, preexec_fn=own_group)
    listener = None
    server = None
    try:
        subprocess.run([os.path.join(BUILD, "load-client"), "owner", "org.a11y.Bus"], env=bus.env, check=True,
                       capture_output=True)
        subprocess.run(["gdbus", "call", "--session", "-d", "org.a11y.Bus", "-o", "/org/a11y/bus", "-m",
                        "org.freedesktop.DBus.Properties.Set", "org.a11y.Status", "IsEnabled", "<true>"],
                       env=bus.env, check=True, capture_output=True)
        server = Server(bus, "progressd")
        load(bus, "start", PROGRESSD, 1)
        deadline = time.monotonic() + 20
        while '"found": true' not in subprocess.run(["/usr/bin/python3", ATSPI_TOOL, "tree"], env=bus.env,
                                                      capture_output=True, text=True).stdout:
            if time.monotonic() > deadline:
                raise RuntimeError("progressd did not appear on the accessibility bus: " + subprocess.run(
                    ["/usr/bin/python3", ATSPI_TOOL, "tree"], env=bus.env, capture_output=True, text=True).stderr[-500:])
            time.sleep(0.2)
        count = 5000 if QUICK else 20000

        reference = Server(bus, "reference")
        load(bus, "start", REFERENCE, 1)

        def cpu_per_call(target=None):
            target = target or server
            before = target.cpu_seconds()
            result = load(bus, "pipeline", target.name, count, 64)
            return (target.cpu_seconds() - before) / result["calls"] * 1e6

        # Each round measures progressd without a listener, then with one attached for the
        # round, in turns with the reference, so all three see the machine of that minute.
        without, attached, bare = [], [], []
        heard = 0
        for round_number in range(CALL_ROUNDS):
            without.append(cpu_per_call())
            stop_file = os.path.join(scratch, f"stop-{round_number}")
            listener = subprocess.Popen(["/usr/bin/python3", ATSPI_TOOL, "listen", "object:property-change:accessible-value",
                                         "--stop", stop_file], env=bus.env, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, preexec_fn=die_with_parent)
            if listener.stdout.readline().strip() != "READY":
                raise RuntimeError("the pyatspi listener did not start")
            for measure in in_turns([lambda: attached.append(cpu_per_call()),
                                     lambda: bare.append(cpu_per_call(reference))], round_number):
                measure()
            open(stop_file, "w").close()
            heard += listener.stdout.read().count("accessible-value")
            listener.wait()
        reference.stop()
        return [(f"  daemon CPU µs per SetFraction (64 in flight), tasks on the a11y bus: a pyatspi value listener "
                 f"attached vs none ({heard} value events heard)", median(attached), median(without), "lower", "<= 1.1x"),
                ("  the same with the listener attached, progressd vs the reference (rounds interleaved)",
                 median(attached), median(bare), "lower", "<= 1.1x")]
    finally:
        if listener and listener.poll() is None:
            listener.kill()
        if server:
            server.stop()
        os.killpg(launcher.pid, signal.SIGTERM)
        launcher.wait()
        bus.stop()
        subprocess.run(["rm", "-rf", scratch])


def rows_for_gnome_shell():
    """What progressd's GNOME Shell extension costs GNOME Shell 43 and 48 (bench/gnome_shell_rows.py)."""
    return gnome_shell_rows.rows(sys.modules[__name__])


def main():
    if "--accessibility-only" in sys.argv:
        for row in rows_for_accessibility():
            print(row)
        return
    only = [arg.split("=", 1)[1].split(",") for arg in sys.argv if arg.startswith("--only=")]
    if only:
        bus = Bus()
        try:
            # accessibility and render start buses or programs of their own
            rows = [row for group in only[0]
                    for row in (globals()["rows_for_" + group]() if group in ("accessibility", "render", "gnome_shell")
                                else globals()["rows_for_" + group](bus))]
        finally:
            bus.stop()
        print_table(rows)
        return
    bus = Bus()
    try:
        rows = (rows_for_calls(bus) + rows_for_sandboxed_caller(bus) + rows_for_fairness(bus) + rows_for_paging(bus)
                + rows_for_big_reads(bus) + rows_for_read_turns(bus)
                + rows_for_flood(bus) + rows_for_memory(bus) + rows_for_snapshot_and_start(bus)
                + rows_for_polling(bus) + rows_for_durable_starts(bus) + rows_for_allocator(bus))
    finally:
        bus.stop()
    rows += rows_for_accessibility()
    rows += rows_for_render()
    rows += rows_for_gnome_shell()
    print_table(rows)


def print_table(rows):
    print(f"\nprogressd benchmark: medians of {REPEATS} runs, progressd against the reference in the same run\n")
    print(f"| figure | progressd | reference | ratio | goal |")
    print(f"|---|---:|---:|---:|---|")
    for title, ours, theirs, _better, goal in rows:
        if ours is None:  # a row that could not run says why in its title
            print(f"| {title} | - | - | - | {goal} |")
            continue
        ratio = f"{ours / theirs:.2f}x" if theirs else "-"
        print(f"| {title} | {ours:,.1f} | {theirs:,.1f} | {ratio} | {goal} |")


if __name__ == "__main__":
    main()
