// GNOME Shell 43 and 44's entry point (imports and init(), as those shells load): the
// extension's work is the shared ProgressController, made in enable() and stopped in
// disable(). The other modules in this folder are written by scripts/shell-extension.py
// from gnome-shell/shared/, the ES modules that GNOME 45 and later load as they are.

/* exported init */

const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();
const {ProgressController} = Me.imports.progressController;

class ProgressExtension {
    enable() {
        this._controller = new ProgressController(Me.dir);
    }

    disable() {
        this._controller.stop();
        this._controller = null;
    }
}

function init() {
    return new ProgressExtension();
}
