// At most one redraw per interval (four a second), however fast tasks move: the first
// change after a quiet spell redraws at once, later ones are gathered and drawn together
// when the interval is up, with what is current then. With no change there is no timer at
// all. The clock and the timer come in as functions (GLib's in the shell, a fake in tests).

export const INTERVAL_MS = 250;
// While the menu is open its rows move with every task: a redraw every two seconds at most
// for progress (state changes keep INTERVAL_MS), since each one is a frame of the whole
// stage with the open menu in it. In a software-rendered GNOME Shell 43, 100 moving tasks
// with the menu open cost the shell 3.65 % of a core more than no extension when the rows
// were read and drawn every second (two runs); a frame with the menu open costs about
// twice one without.
export const OPEN_INTERVAL_MS = 2000;

export class RedrawPacer {
    // now(): milliseconds, monotonic; setTimer(ms, callback) -> id; clearTimer(id);
    // redraw(): draws what changed.
    constructor({now, setTimer, clearTimer, redraw, intervalMs = INTERVAL_MS}) {
        this._now = now;
        this._setTimer = setTimer;
        this._clearTimer = clearTimer;
        this._redraw = redraw;
        this._interval = intervalMs;
        this._last = null;
        this._timer = null;
        this._due = null;
    }

    get pending() {
        return this._timer !== null;
    }

    // Something changed: redraw now if the last redraw is an interval old, else once then.
    // `intervalMs`, at least the pacer's own: a longer one for what may wait (progress rows
    // while the menu is open); a request with a shorter one brings a later redraw forward.
    request(intervalMs = this._interval) {
        const due = this._last === null ? this._now() : this._last + Math.max(intervalMs, this._interval);
        if (this._timer !== null) {
            if (due >= this._due)
                return;
            this.cancel();
        }
        const wait = due - this._now();
        if (wait <= 0) {
            this._fire();
            return;
        }
        this._due = due;
        this._timer = this._setTimer(wait, () => {
            this._timer = null;
            this._fire();
        });
    }

    cancel() {
        if (this._timer !== null)
            this._clearTimer(this._timer);
        this._timer = null;
    }

    _fire() {
        this._last = this._now();
        this._redraw();
    }
}
