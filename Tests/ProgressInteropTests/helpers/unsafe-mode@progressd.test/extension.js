// Test only (GnomeShellInteropTests): GNOME Shell 43 has no --unsafe-mode flag, and Eval
// answers (false, '') without it. Never installed with progressd.

/* exported init */

function init() {
    return {
        enable() {
            global.context.unsafe_mode = true;
        },
        disable() {
            global.context.unsafe_mode = false;
        },
    };
}
