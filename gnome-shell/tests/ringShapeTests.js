/* exported tests */
const {equal, ok} = imports.assert;
const {ringShape, PULSE_STEPS} = imports.ringShape;

const TOP = -Math.PI / 2;
const near = (a, b) => Math.abs(a - b) < 1e-9;

function ring(extra) {
    return {fraction: 0, indeterminate: false, failed: false, paused: false, stalled: false, live: 1, ...extra};
}

var tests = {
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
};
