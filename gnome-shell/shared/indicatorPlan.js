// What the indicator has to draw again, and nothing more: GNOME Shell is the compositor, and
// a repaint of the ring is a frame of the whole stage, so what does not change a pixel or a
// word is not drawn. The ring is drawn when its arc moves a device pixel (on its real size
// at the real scale) or its colour or mark changes; the summary (the accessible name) when
// its words change, which an Overall alone does only when the whole percent moves; the
// rows only while the menu is open. With the menu closed an Overall costs a comparison:
// the tasks are walked only when one of them changed (a state change, since progressd
// sends those at once and holds progress moves for an hour), never for a progress move.
// Pure: the controller draws what plan() returns, and gjs tests it alone.

import {describe, describeRing, summaryText, wholePercent, withFraction} from './taskView.js';
import {ringShape, ringPixels} from './ringShape.js';

export class IndicatorPlan {
    // words, locale: the view's (see taskView.describe).
    constructor({words, locale}) {
        this._words = words;
        this._locale = locale;
        this.forget();
    }

    // Nothing is on screen (the indicator left the bar): the next plan draws everything.
    forget() {
        // The model's tasksVersion that _ring was worked out from, and that ring (counts
        // and the tasks' own fraction).
        this._tasksVersion = null;
        this._ring = null;
        // What is on screen: the ring's pixels, the summary and the whole percent in it,
        // the rows' tasksVersion (null: none shown).
        this._ringDrawn = null;
        this._summary = null;
        this._percent = null;
        this._rowsVersion = null;
    }

    // Whether the model as it is now would draw something other than what is on screen:
    // asked at every Overall, so it walks no task unless a task changed.
    moves(model, pixelsPerTurn, pulseStep = 0, animate = true) {
        if (model.tasksVersion !== this._tasksVersion)
            return true;
        const ring = withFraction(this._ring, this._liveOverall(model));
        if (wholePercent(ring.fraction) !== this._percent)
            return true;
        return ringPixels(ringShape(ring, pulseStep, animate), pixelsPerTurn) !== this._ringDrawn;
    }

    // What to draw now: `shape` (the ring's, or null if it looks as drawn), `summary` (or
    // null if unchanged), `view` (the rows', worked out only while the menu is open and a
    // task changed since the rows were drawn, else null), `visible`, `pulsing`.
    // open: the menu is open; pixelsPerTurn: the ring's arc in device pixels.
    plan(model, {open = false, maxRows = 8, pixelsPerTurn, pulseStep = 0, animate = true}) {
        const tasksChanged = model.tasksVersion !== this._tasksVersion;
        let tasks = null;
        if (tasksChanged) {
            tasks = model.topLevel();
            this._ring = describeRing(tasks);
            this._tasksVersion = model.tasksVersion;
        }
        const ring = withFraction(this._ring, this._liveOverall(model));
        const visible = ring.live > 0 || ring.failed;
        const shape = ringShape(ring, pulseStep, animate);
        const drawn = ringPixels(shape, pixelsPerTurn);
        const result = {visible, shape: null, summary: null, view: null, pulsing: shape.pulsing};
        if (!visible) {
            this.forget();
            return result;
        }
        if (drawn !== this._ringDrawn) {
            this._ringDrawn = drawn;
            result.shape = shape;
        }
        const percent = wholePercent(ring.fraction);
        if (tasksChanged || percent !== this._percent) {
            this._percent = percent;
            const summary = summaryText(ring, this._words, this._locale);
            if (summary !== this._summary) {
                this._summary = summary;
                result.summary = summary;
            }
        }
        if (open && this._rowsVersion !== this._tasksVersion) {
            result.view = describe(tasks ?? model.topLevel(), {
                maxRows, words: this._words, locale: this._locale, overall: model.overallFraction,
            });
            this._rowsVersion = this._tasksVersion;
        } else if (!open) {
            this._rowsVersion = null;
        }
        return result;
    }

    // The manager's Overall fraction while a live task makes it count (the ring's and the
    // summary's), else null: the tasks' own.
    _liveOverall(model) {
        return this._ring.live > 0 ? model.overallFraction : null;
    }
}
