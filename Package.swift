// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "progressd",
    products: [
        .executable(name: "progressd", targets: ["progressd"]),
        .executable(name: "progressctl", targets: ["progressctl"]),
        .executable(name: "progress-render", targets: ["progress-render"]),
        // What `make install` and the package install: the three in one file (see Sources/progress).
        .executable(name: "progress", targets: ["progress"]),
    ],
    targets: [
        // System libraries from Debian (installed by `make deps`).
        .systemLibrary(
            name: "CGLib", path: "Sources/CGLib", pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]),

        // cairo, pango and libpng: their headers only (Sources/CCairo/drawing-headers.pc gives
        // their include paths and no -l flag), so that no program is linked against them.
        // CCairoLoader defines the functions the renderer calls and opens the libraries on
        // first use; a function it lacks is an undefined symbol at link time.
        .systemLibrary(
            name: "CCairo", path: "Sources/CCairo",
            pkgConfig: Context.packageDirectory + "/Sources/CCairo/drawing-headers.pc",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev", "libpng-dev"])]),
        // Debian's ICU (libicu-dev): numbers, sizes, durations and directions in CLDR's forms.
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),

        // Pure Swift, importing nothing else: the values (names, tasks, changes, errors, limits),
        // the core (the front door, the store and the change stream) and the pacing policies.
        .target(name: "ProgressModel"),
        .target(name: "ProgressCore", dependencies: ["ProgressModel"]),
        .target(name: "ProgressPolicies", dependencies: ["ProgressModel"]),
        // Locale resolution and labels, through Debian's ICU.
        .target(name: "ProgressText", dependencies: ["ProgressModel", "CICU"]),
        // The state directory: a journal and snapshots of TaskRecords (POSIX files, no GLib).
        .target(name: "ProgressState", dependencies: ["ProgressModel"]),
        // GDBus plumbing: variants, method tables, the main-loop timer, the service runner, and
        // the names and XML of the Progress1 API that both sides share.
        .target(
            name: "ProgressBus", dependencies: ["ProgressModel", "CGLib"],
            resources: [.embedInCode("org.progressd.Progress1.xml")]),
        // The client side: calls and signals, for progressctl, progress-render and the tests.
        .target(name: "ProgressClient", dependencies: ["ProgressBus", "CGLib"]),
        // The Progress1 server: the front door's D-Bus inputs and the change stream's outputs.
        .target(name: "ProgressDaemon", dependencies: [
            "ProgressBus", "ProgressModel", "ProgressCore", "ProgressPolicies", "CGLib",
        ]),
        // KDE's job view protocol both ways: serving org.kde.JobViewServer (KIO jobs become
        // tasks) and forwarding tasks to Plasma's server.
        .target(
            name: "ProgressKDE", dependencies: [
                "ProgressDaemon", "ProgressBus", "ProgressModel", "ProgressPolicies", "CGLib",
            ],
            resources: [.embedInCode("org.kde.JobViews.xml")]),
        // The Renderer1 server (progress-render --service).
        .target(
            name: "ProgressRenderService", dependencies: ["ProgressBus", "ProgressModel", "CGLib"],
            resources: [.embedInCode("org.progressd.Renderer1.xml")]),
        // The three programs' flags: the one parser, and the help printed from each option table.
        .target(name: "ProgressCommandLine"),

        // Docks and notifications: LauncherEntry in and out, org.freedesktop.Notifications.
        .target(name: "ProgressDesktop", dependencies: [
            "ProgressDaemon", "ProgressBus", "ProgressModel", "ProgressCore", "ProgressPolicies", "CGLib",
        ]),

        // Every task as a progress bar on the AT-SPI accessibility bus: one output of the daemon.
        .target(
            name: "ProgressAccessibility", dependencies: [
                "ProgressDaemon", "ProgressBus", "ProgressModel", "ProgressCore", "ProgressPolicies", "CGLib",
            ],
            resources: [.embedInCode("org.a11y.atspi.xml")]),

        // Jobs of system services (PackageKit, UDisks2, fwupd, systemd-importd) read from the
        // system bus: one input per service.
        .target(name: "ProgressSystem", dependencies: [
            "ProgressDaemon", "ProgressBus", "ProgressText", "ProgressModel", "ProgressCore", "CGLib",
        ]),
        // The tasks as a StatusNotifierItem in trays without a job tracker: ring, tooltip, menu.
        .target(
            name: "ProgressTray", dependencies: [
                "ProgressDaemon", "ProgressRender", "ProgressText", "ProgressBus", "ProgressModel", "ProgressCore",
                "ProgressPolicies", "CGLib",
            ],
            resources: [.embedInCode("org.kde.StatusNotifierItem.xml"), .embedInCode("com.canonical.dbusmenu.xml")]),

        // progressd's flags, its parts in their order, and its run.
        .target(
            name: "ProgressdProgram",
            dependencies: [
                "ProgressDaemon", "ProgressDesktop", "ProgressKDE", "ProgressAccessibility", "ProgressSystem",
                "ProgressTray",
                "ProgressBus", "ProgressText", "ProgressState", "ProgressCommandLine", "ProgressModel",
            ]),
        .executableTarget(name: "progressd", dependencies: ["ProgressdProgram"]),

        // The cairo, pango and libpng functions the renderer calls, each loading its library
        // on first use, so that a program that does not draw does not load them.
        .target(name: "CCairoLoader", dependencies: ["CCairo"], linkerSettings: [.linkedLibrary("dl")]),
        // The process and terminal calls glibc declares only for GNU sources (pipe2, posix_openpt,
        // ptsname_r, posix_spawn's new session and closefrom), in C built with _GNU_SOURCE.
        .target(name: "CPlatform"),
        // cairo and pango drawing, PNG through libpng: the only module that imports CCairo.
        .target(name: "ProgressRender", dependencies: ["ProgressModel", "CCairo", "CCairoLoader"]),
        // progress-render's flags, the image it draws from them, and its D-Bus service.
        .target(
            name: "ProgressRenderProgram",
            dependencies: [
                "ProgressRender", "ProgressCommandLine", "ProgressRenderService", "ProgressClient", "ProgressText",
                "ProgressBus", "ProgressModel",
            ]),
        .executableTarget(name: "progress-render", dependencies: ["ProgressRenderProgram"]),

        // make bench's renderer side (bench/render is its C reference).
        .executableTarget(name: "render-bench", dependencies: ["ProgressRender"], path: "bench/render-swift"),

        // progressctl's commands, argument parsing and terminal drawing.
        .target(
            name: "ProgressctlProgram",
            dependencies: [
                "ProgressCommandLine", "ProgressClient", "ProgressBus", "ProgressText", "ProgressModel", "CPlatform",
                "CGLib",
            ]),
        .executableTarget(name: "progressctl", dependencies: ["ProgressctlProgram"]),
        // The three programs in one executable, chosen by the name it is started by.
        .executableTarget(name: "progress", dependencies: [
            "ProgressdProgram", "ProgressRenderProgram", "ProgressctlProgram",
        ]),

        // Private dbus-daemon and daemon processes for the integration tests.
        .target(name: "ProgressTestSupport", dependencies: [
            "ProgressClient", "ProgressBus", "ProgressModel",
        ], path: "Tests/Support"),
        .testTarget(name: "ProgressCoreTests", dependencies: [
            "ProgressModel", "ProgressCore", "ProgressPolicies", "ProgressTestSupport",
        ]),
        .testTarget(name: "ProgressTextTests", dependencies: [
            "ProgressText", "ProgressModel", "ProgressCore", "ProgressPolicies", "ProgressTestSupport",
        ]),
        .testTarget(
            name: "ProgressStateTests", dependencies: ["ProgressState", "ProgressModel", "ProgressTestSupport"]),
        .testTarget(
            name: "ProgressRenderTests",
            dependencies: [
                "ProgressRender", "ProgressRenderService", "ProgressModel", "ProgressBus", "ProgressClient",
                "ProgressTestSupport",
                "progress-render", "progressd", "progressctl",
            ],
            exclude: ["References"]),
        .testTarget(
            name: "ProgressctlProgramTests",
            dependencies: [
                "ProgressctlProgram", "ProgressCommandLine", "ProgressBus", "ProgressClient", "ProgressTestSupport",
                "progressctl",
                "progressd", "progress-render",
            ],
            exclude: ["help"]),
        .testTarget(
            name: "ProgressDesktopTests",
            dependencies: [
                "ProgressDesktop", "ProgressDaemon", "ProgressText", "ProgressModel", "ProgressPolicies",
                "ProgressClient", "ProgressBus",
                "ProgressTestSupport", "progressd",
            ],
            exclude: ["helpers"]),
        .testTarget(
            name: "ProgressAccessibilityTests",
            dependencies: [
                "ProgressAccessibility", "ProgressBus", "ProgressClient", "ProgressModel", "ProgressPolicies",
                "ProgressTestSupport", "progressd",
            ],
            exclude: ["python"]),
        // ProgressBus itself: variants, method tables.
        .testTarget(name: "ProgressBusTests", dependencies: [
            "ProgressDaemon", "ProgressBus", "ProgressModel", "ProgressCore", "ProgressPolicies",
            "ProgressTestSupport",
        ]),
        // The daemon on a private bus: the Progress1 API, its lifecycle, faults and a short fuzz.
        .testTarget(
            name: "ProgressDaemonTests",
            dependencies: [
                "ProgressDaemon", "ProgressBus", "ProgressClient", "ProgressCommandLine", "ProgressRenderService",
                "ProgressModel", "ProgressCore", "ProgressPolicies",
                "ProgressTestSupport", "progressd", "progress",
            ]),
        // What depends on the machine (resident memory, floods of thousands of tasks, long
        // soaks): `make soak` runs them, `make test` skips them.
        .testTarget(
            name: "ProgressSoakTests", dependencies: [
                "ProgressBus", "ProgressClient", "ProgressTestSupport", "progressd",
            ]),
        .testTarget(
            name: "ProgressTrayTests",
            dependencies: [
                "ProgressRender", "ProgressBus", "ProgressClient", "ProgressModel", "ProgressPolicies",
                "ProgressTestSupport", "progressd",
            ],
            exclude: ["helpers"]),
        .testTarget(
            name: "ProgressKDETests",
            dependencies: [
                "ProgressKDE", "ProgressClient", "ProgressModel", "ProgressTestSupport", "progressd", "progressctl",
            ],
            exclude: ["helpers"]),
        .testTarget(
            name: "ProgressSystemTests",
            dependencies: [
                "ProgressSystem", "ProgressText", "ProgressClient", "ProgressModel", "ProgressTestSupport",
                "progressd", "progressctl",
            ],
            exclude: ["helpers"]),
        // Real desktop clients (kioclient5, libunity, dunst …): `make interop` installs them and
        // sets PROGRESSD_INTEROP=1; `make test` skips them.
        .testTarget(
            name: "ProgressInteropTests",
            dependencies: [
                "ProgressBus", "ProgressClient", "ProgressModel", "ProgressRender", "ProgressTestSupport", "progressd",
                "progressctl",
            ],
            exclude: ["helpers"]),
    ],
    swiftLanguageModes: [.v6]
)
