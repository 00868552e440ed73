// Test only (GnomeShell48InteropTests): Eval answers (false, '') unless the shell is in
// unsafe mode, which GNOME Shell 45 and later turn on for no flag of a headless shell. An ES
// module, as every shell since 45 loads. Never installed with progressd.

import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class UnsafeModeExtension extends Extension {
    enable() {
        global.context.unsafe_mode = true;
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}
