import {equal, ok} from './assert.js';

// The module under test, the ES module (GNOME 45 and later) or the 43/44 one written from
// it: runTests.js sets it with use() before it runs the tests, once for each.
let ringShape, sameLook, PULSE_STEPS;
export function use(modules) {
    ({ringShape, sameLook, PULSE_STEPS} = modules.ringShape);
}

const TOP = -Math.PI / 2;
const near = (a, b) => Math.abs(a - b) < 1e-9;

function ring(extra) {
    return {fraction: 0, indeterminate: false, failed: false, paused: false, stalled: false, live: 1, ...extra};
}

export const tests = {
    'the arc is the fraction, from twelve o\'clock clockwise'() {
        const shape = ringShape(ring({fraction: 0.25}));
        ok(near(shape.arc.start, TOP), 'start');
        ok(near(shape.arc.end, 0), `end ${shape.arc.end}`);
        equal(shape.color, 'running', 'color');
        equal(shape.pulsing, false, 'pulsing');
    },

    'nothing done draws the track alone'() {
        equal(ringShape(ring({fraction: 0})).arc, null, 'arc');
    },

    'the pulse is a quarter arc that steps round, and stands still without animations'() {
        const first = ringShape(ring({indeterminate: true}), 0);
        const next = ringShape(ring({indeterminate: true}), 1);
        ok(first.pulsing, 'pulsing');
        ok(near(first.arc.end - first.arc.start, Math.PI / 2), 'a quarter');
        ok(near(next.arc.start - first.arc.start, 2 * Math.PI / PULSE_STEPS), 'one step');
        ok(near(ringShape(ring({indeterminate: true}), PULSE_STEPS).arc.start, first.arc.start), 'a whole turn');
        const still = ringShape(ring({indeterminate: true}), 3, false);
        equal(still.pulsing, false, 'no animation');
        ok(near(still.arc.start, TOP), 'still at the top');
    },

    'a lingering failure marks the ring; alone it is a whole ring in the failure\'s colour'() {
        const withLive = ringShape(ring({fraction: 0.5, failed: true}));
        ok(withLive.failureMark, 'mark');
        equal(withLive.color, 'running', 'the live tasks\' colour');
        const alone = ringShape(ring({live: 0, failed: true}));
        equal(alone.color, 'failed', 'colour');
        ok(near(alone.arc.end - alone.arc.start, 2 * Math.PI), 'whole ring');
    },

    'paused tasks draw in the pause colour'() {
        equal(ringShape(ring({fraction: 0.5, paused: true})).color, 'paused', 'colour');
    },

    'a move of the arc under half a pixel looks the same; a pixel, a colour or a mark does not'() {
        const at = (fraction, extra = {}) => ringShape(ring({fraction, ...extra}));
        // A ring 40 pixels round: a pixel is 2.5 % of a turn.
        ok(sameLook(at(0.42), at(0.43), 40), '42 % and 43 %');
        equal(sameLook(at(0.42), at(0.45), 40), false, '42 % and 45 %');
        equal(sameLook(at(0.42), at(0.42, {paused: true}), 40), false, 'paused');
        equal(sameLook(at(0.42), at(0.42, {failed: true}), 40), false, 'a failure\'s mark');
        equal(sameLook(at(0), at(0.42), 40), false, 'no arc, then one');
        ok(sameLook(at(0), at(0), 40), 'no arc twice');
        equal(sameLook(null, at(0), 40), false, 'nothing drawn yet');
        equal(sameLook(ringShape(ring({indeterminate: true}), 0), ringShape(ring({indeterminate: true}), 1), 40), false,
            'a pulse step');
    },
};
