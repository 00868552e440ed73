// Written by scripts/shell-extension.py from gnome-shell/shared/taskModel.js for GNOME Shell 43 and 44:
// edit that file, not this one (make test fails while the two differ).

// What progressd said about its tasks, kept as plain values: fed by Changes(since)
// replies, by the subscription's Changed and Removed signals (which come at once only for
// a change of State, Indeterminate, Stalled or CancelRequested), and by the manager's
// Overall, whose fraction the ring shows while task fractions are not read (once the
// tasks' states count as many live tasks as it does). Read by the view. It uses no GNOME
// Shell or GObject module, so that gjs tests it alone and any entry point (GNOME 43/44's
// imports, 45's ES modules) can sit over it.

// The task properties the extension shows or decides with; a change to any other (Serial,
// Updated, Rate, AccessibleText...) can not change what is drawn, so it marks nothing.
/* exported PROPERTIES, isLive, isEnded, TaskModel */

var PROPERTIES = [
    'Title', 'State', 'Indeterminate', 'Fraction', 'Label', 'Detail', 'Message', 'Cancellable',
    'Pausable', 'CancelRequested', 'Parent', 'Weight', 'Created', 'Stalled',
];

const LIVE_STATES = new Set(['running', 'paused']);

function isLive(task) {
    return LIVE_STATES.has(task.State);
}

function isEnded(task) {
    return task.State !== undefined && !LIVE_STATES.has(task.State);
}

var TaskModel = class TaskModel {
    constructor() {
        this._tasks = new Map();
        // Ended top-level tasks the user cleared from the menu, by name: they stay hidden
        // while they linger in progressd, and show again if the name starts afresh.
        this._dismissed = new Set();
        // Grows with every change that can change what is drawn: the view redraws only
        // when it differs from the one it drew.
        this.version = 0;
        // The manager's Overall fraction when it is newer than the tasks' Fraction (they
        // are read only while the menu is open); null when the tasks' values are current.
        this.overallFraction = null;
        // The last Overall ({fraction, active}), kept while it counts other live tasks than
        // these: see _settleOverall.
        this._overall = null;
    }

    get size() {
        return this._tasks.size;
    }

    task(name) {
        return this._tasks.get(name);
    }

    // progressd left the bus: nothing of it is known any more.
    clear() {
        if (this._tasks.size === 0 && this._dismissed.size === 0)
            return false;
        this._tasks.clear();
        this._dismissed.clear();
        this.overallFraction = null;
        this._overall = null;
        this.version++;
        return true;
    }

    // A Changes reply: `reset` replaces everything; else `removed` applies first (a name
    // removed and started again is in both), then each task's changed properties.
    applyChanges(reset, tasks, removed) {
        // Every task's Fraction is as new as this reply, and newer than any Overall before it.
        let changed = this.overallFraction !== null;
        this.overallFraction = null;
        this._overall = null;
        if (reset) {
            changed = this._tasks.size > 0;
            this._tasks.clear();
            for (const name of this._dismissed) {
                if (!(name in tasks))
                    this._dismissed.delete(name);
            }
        }
        for (const name of removed)
            changed = this._remove(name) || changed;
        for (const [name, properties] of Object.entries(tasks))
            changed = this._merge(name, properties) || changed;
        if (changed)
            this.version++;
        return changed;
    }

    // The manager's Overall (its PropertiesChanged): its fraction is the ring's from now on,
    // until a Changes reply brings the tasks' own. A change is one the whole percent shows
    // (the summary; the ring's pixel is coarser); smaller moves mark nothing.
    applyOverall(overall) {
        if (typeof overall?.fraction !== 'number')
            return false;
        this._overall = {fraction: overall.fraction, active: typeof overall.active === 'number' ? overall.active : null};
        const changed = this._settleOverall();
        if (changed)
            this.version++;
        return changed;
    }

    // A subscription's Changed(name, properties).
    applyChanged(name, properties) {
        const changed = this._merge(name, properties);
        if (changed) {
            this._settleOverall();
            this.version++;
        }
        return changed;
    }

    // A subscription's Removed(name).
    applyRemoved(name) {
        const changed = this._remove(name);
        if (changed) {
            this._settleOverall();
            this.version++;
        }
        return changed;
    }

    // Hides every ended top-level task from the menu ("Clear"): a lingering failure then no
    // longer keeps the indicator. progressd keeps them for other clients until they expire.
    dismissEnded() {
        let changed = false;
        for (const [name, task] of this._tasks) {
            if (task.Parent === '' && isEnded(task) && !this._dismissed.has(name)) {
                this._dismissed.add(name);
                changed = true;
            }
        }
        if (changed)
            this.version++;
        return changed;
    }

    // The top-level tasks to show, each a plain object with `Name` and the properties.
    topLevel() {
        const tasks = [];
        for (const [name, task] of this._tasks) {
            if (task.Parent === '' && !this._dismissed.has(name))
                tasks.push(task);
        }
        return tasks;
    }

    // Takes the last Overall's fraction for the ring, unless it counts other live top-level
    // tasks than these: then it is ahead of their State changes (progressd sends it just
    // before them, and the subscription sends those at once), and it waits for them while
    // the ring keeps what it shows. Else a task that ends would first empty the ring, and
    // only leave the bar at the next redraw. Returns whether the whole percent moved.
    _settleOverall() {
        const overall = this._overall;
        if (overall === null || (overall.active !== null && overall.active !== this._liveTopLevelCount()))
            return false;
        this._overall = null;
        const before = this.overallFraction;
        this.overallFraction = overall.fraction;
        return before === null || Math.floor(before * 100 + 1e-9) !== Math.floor(overall.fraction * 100 + 1e-9);
    }

    _liveTopLevelCount() {
        let count = 0;
        for (const task of this._tasks.values()) {
            if (task.Parent === '' && isLive(task))
                count++;
        }
        return count;
    }

    _remove(name) {
        this._dismissed.delete(name);
        return this._tasks.delete(name);
    }

    _merge(name, properties) {
        let task = this._tasks.get(name);
        let changed = false;
        if (!task) {
            task = {
                Name: name, Title: '', State: 'running', Indeterminate: false, Fraction: 0, Label: '',
                Detail: '', Message: '', Cancellable: false, Pausable: false, CancelRequested: false,
                Parent: '', Weight: 1, Created: 0, Stalled: false,
            };
            this._tasks.set(name, task);
            changed = true;
        }
        for (const key of PROPERTIES) {
            if (key in properties && task[key] !== properties[key]) {
                task[key] = properties[key];
                changed = true;
            }
        }
        // A cleared task that starts afresh (Start on an ended name) shows again.
        if (isLive(task))
            this._dismissed.delete(name);
        return changed;
    }
};
