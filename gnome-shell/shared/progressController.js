// Ties progressd's tasks (ProgressSource, TaskModel) to the top bar (ProgressIndicator),
// redrawing at most four times a second and only when something that shows changed, as
// IndicatorPlan decides: the ring when its arc moves a pixel, the summary when the whole
// percent moves, the rows only while the menu is open (read then with Changes(since), and
// drawn at most every two seconds for progress). With the menu closed an Overall costs a
// comparison, and no task is walked. The indicator is in the bar only while a top-level task
// is live or a failure lingers. Everything it makes, connects or starts it makes in its
// constructor and undoes in stop().

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import St from 'gi://St';
import Gettext from 'gettext';

import * as Main from 'resource:///org/gnome/shell/ui/main.js';

import {TaskModel, PROPERTIES} from './taskModel.js';
import {catalogWords, screenfulRows} from './taskView.js';
import {PULSE_STEPS} from './ringShape.js';
import {RedrawPacer, INTERVAL_MS, OPEN_INTERVAL_MS} from './redrawPacer.js';
import {IndicatorPlan} from './indicatorPlan.js';
import {ProgressSource} from './progressSource.js';
import {ProgressIndicator} from './indicator.js';

// The shell's locale for the daemon's texts (Label, Detail), as progressd reads its own:
// "" (the daemon's) when the shell runs in C or POSIX, which progressd reads as English.
function shellLocale() {
    for (const variable of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
        const value = GLib.getenv(variable);
        if (value)
            return value === 'C' || value === 'POSIX' || value.startsWith('C.') ? '' : value;
    }
    return '';
}

// progressd's catalogs sit in share/locale beside share/gnome-shell/extensions/<uuid>
// (make install's PREFIX, ~/.local, or /usr for the package, gettext's own default).
function bindCatalog(extensionDir) {
    const locale = extensionDir.get_parent()?.get_parent()?.get_parent()?.get_child('locale');
    if (locale?.query_exists(null))
        Gettext.bindtextdomain('progressd', locale.get_path());
}

// The words in progressd's catalog where it has them, else English.
function localWords(extensionDir) {
    bindCatalog(extensionDir);
    return catalogWords(Gettext.domain('progressd'));
}

// What the extension does while it is enabled; each entry point (extension.js for GNOME
// 45 and later, the 43/44 one) makes one in enable() and stops it in disable().
export class ProgressController {
    // extensionDir: the Gio.File of the extension's folder.
    constructor(extensionDir) {
        this._model = new TaskModel();
        this._words = localWords(extensionDir);
        this._locale = shellLocale();
        this._indicator = null;
        this._plan = new IndicatorPlan({words: this._words, locale: this._locale || undefined});
        this._open = false;
        this._pulseStep = 0;
        this._pulseTimer = 0;
        this._pollTimer = 0;
        this._settings = St.Settings.get();
        this._animate = this._settings.enable_animations;
        this._animationsChanged = this._settings.connect('notify::enable-animations', () => {
            this._animate = this._settings.enable_animations;
            this._pacer.request();
        });
        // The ring's arc in device pixels, as the last redraw found it.
        this._pixels = ProgressIndicator.defaultRingPixelsPerTurn();
        this._pacer = new RedrawPacer({
            now: () => GLib.get_monotonic_time() / 1000,
            setTimer: (ms, callback) => GLib.timeout_add(GLib.PRIORITY_DEFAULT, Math.ceil(ms), () => {
                callback();
                return GLib.SOURCE_REMOVE;
            }),
            clearTimer: id => GLib.source_remove(id),
            redraw: () => this._redraw(),
        });
        this._source = new ProgressSource(Gio.DBus.session, {
            properties: PROPERTIES,
            // What the indicator shows: the summary's whole percent, and the ring's arc in
            // device pixels (41 round a 16-pixel ring), drawn rounded: at twice that many
            // steps, a rounding's edge is crossed at most a quarter pixel before it is sent.
            overallSteps: () => [Math.min(Math.ceil(2 * this._pixels), 10000), 100],
            locale: this._locale,
            onChanges: (kind, ...args) => this._apply(kind, args),
        });
        this._source.start();
    }

    stop() {
        this._stopPolling();
        this._source.stop();
        this._source = null;
        this._pacer.cancel();
        this._stopPulse();
        this._settings.disconnect(this._animationsChanged);
        this._indicator?.destroy();
        this._indicator = null;
        this._model = null;
        this._plan = null;
    }

    _apply(kind, args) {
        if (kind === 'overall') {
            // When the ring's pixels, the whole percent, or the state or count moved (as
            // progressd sends it): a redraw only if the ring or the percent would show it.
            this._model.applyOverall(...args);
            if (this._plan.moves(this._model, this._pixels, this._pulseStep, this._animate))
                this._pacer.request(this._open ? OPEN_INTERVAL_MS : INTERVAL_MS);
            return;
        }
        let changed;
        if (kind === 'changes')
            changed = this._model.applyChanges(...args);
        else if (kind === 'changed')
            changed = this._model.applyChanged(...args);
        else if (kind === 'removed')
            changed = this._model.applyRemoved(...args);
        else
            changed = this._model.clear();
        // A Changes reply is the open menu's progress; Changed and Removed are state changes.
        if (changed)
            this._pacer.request(kind === 'changes' && this._open ? OPEN_INTERVAL_MS : INTERVAL_MS);
    }

    _redraw() {
        const monitor = Main.layoutManager.primaryMonitor;
        this._pixels = this._indicator?.ringPixelsPerTurn() ?? ProgressIndicator.defaultRingPixelsPerTurn();
        const plan = this._plan.plan(this._model, {
            open: this._open,
            maxRows: screenfulRows(monitor ? monitor.height : 800),
            pixelsPerTurn: this._pixels,
            pulseStep: this._pulseStep,
            animate: this._animate,
        });
        if (!plan.visible) {
            this._stopPulse();
            this._stopPolling();
            this._open = false;
            this._indicator?.destroy();
            this._indicator = null;
            return;
        }
        if (!this._indicator) {
            this._indicator = new ProgressIndicator({
                request: (method, name) => this._source.request(method, name),
                clearEnded: () => {
                    if (this._model.dismissEnded())
                        this._pacer.request();
                },
                menuOpen: open => this._menuOpen(open),
            }, this._words);
            Main.panel.addToStatusArea('progressd', this._indicator);
        }
        if (plan.shape)
            this._indicator.setShape(plan.shape);
        if (plan.summary !== null)
            this._indicator.accessible_name = plan.summary;
        if (plan.view)
            this._indicator.showRows(plan.view);
        if (plan.pulsing)
            this._startPulse();
        else
            this._stopPulse();
    }

    _menuOpen(open) {
        this._open = open;
        if (open) {
            // The rows from what is known now, then from what Changes brings.
            this._redraw();
            this._startPolling();
        } else {
            this._stopPolling();
        }
    }

    // While every live task is indeterminate and animations are on, the ring's quarter arc
    // steps round at the pacer's pace; nothing runs otherwise.
    _startPulse() {
        if (this._pulseTimer)
            return;
        this._pulseTimer = GLib.timeout_add(GLib.PRIORITY_DEFAULT, INTERVAL_MS, () => {
            this._pulseStep = (this._pulseStep + 1) % PULSE_STEPS;
            this._pacer.request();
            return GLib.SOURCE_CONTINUE;
        });
    }

    // While the menu is open its rows follow the tasks: what changed since the last read,
    // at the open menu's pace (a read waits for the one before it). Closed, nothing is read.
    _startPolling() {
        this._source.poll();
        if (this._pollTimer)
            return;
        this._pollTimer = GLib.timeout_add(GLib.PRIORITY_DEFAULT, OPEN_INTERVAL_MS, () => {
            this._source.poll();
            return GLib.SOURCE_CONTINUE;
        });
    }

    _stopPolling() {
        if (this._pollTimer)
            GLib.source_remove(this._pollTimer);
        this._pollTimer = 0;
    }

    _stopPulse() {
        if (this._pulseTimer)
            GLib.source_remove(this._pulseTimer);
        this._pulseTimer = 0;
    }
}
