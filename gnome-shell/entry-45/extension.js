// GNOME Shell 45 and later's entry point (an ES module, as those shells load): the
// extension's work is the shared ProgressController (shared/progressController.js), made in
// enable() and stopped in disable(). The 43/44 entry (progressd@progressd.org/extension.js)
// does the same over the same modules, which scripts/shell-extension.py writes for it.

import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import {ProgressController} from './progressController.js';

export default class ProgressdExtension extends Extension {
    enable() {
        this._controller = new ProgressController(this.dir);
    }

    disable() {
        this._controller.stop();
        this._controller = null;
    }
}
