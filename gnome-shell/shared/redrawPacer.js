// At most one redraw per interval (four a second), however fast tasks move: the first
// change after a quiet spell redraws at once, later ones are gathered and drawn together
// when the interval is up, with what is current then. With no change there is no timer at
// all. The clock and the timer come in as functions (GLib's in the shell, a fake in tests).

export const INTERVAL_MS = 250;

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
    }

    get pending() {
        return this._timer !== null;
    }

    // Something changed: redraw now if the last redraw is an interval old, else once then.
    request() {
        if (this._timer !== null)
            return;
        const wait = this._last === null ? 0 : this._last + this._interval - this._now();
        if (wait <= 0) {
            this._fire();
            return;
        }
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
