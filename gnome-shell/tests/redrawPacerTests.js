import {equal, ok} from './assert.js';

// The module under test, the ES module (GNOME 45 and later) or the 43/44 one written from
// it: runTests.js sets it with use() before it runs the tests, once for each.
let RedrawPacer;
export function use(modules) {
    ({RedrawPacer} = modules.redrawPacer);
}

// A fake clock and timer list: `advance` runs what falls due.
function harness() {
    const state = {now: 0, timers: [], redraws: [], nextId: 1};
    const pacer = new RedrawPacer({
        now: () => state.now,
        setTimer: (ms, callback) => {
            const id = state.nextId++;
            state.timers.push({id, at: state.now + ms, callback});
            return id;
        },
        clearTimer: id => {
            state.timers = state.timers.filter(timer => timer.id !== id);
        },
        redraw: () => state.redraws.push(state.now),
    });
    state.advance = ms => {
        const end = state.now + ms;
        for (;;) {
            state.timers.sort((a, b) => a.at - b.at);
            const next = state.timers[0];
            if (!next || next.at > end)
                break;
            state.timers.shift();
            state.now = next.at;
            next.callback();
        }
        state.now = end;
    };
    return {pacer, state};
}

export const tests = {
    'the first change after a quiet spell draws at once'() {
        const {pacer, state} = harness();
        pacer.request();
        equal(state.redraws.length, 1, 'redraws');
        equal(state.timers.length, 0, 'no timer');
    },

    'a flood of changes draws at most four times a second, the last one included'() {
        const {pacer, state} = harness();
        // A change every millisecond for two seconds.
        for (let ms = 0; ms < 2000; ms++) {
            pacer.request();
            state.advance(1);
        }
        state.advance(1000);
        ok(state.redraws.length <= 2 * 4 + 1, `${state.redraws.length} redraws in two seconds`);
        ok(state.redraws.length >= 2 * 4, `${state.redraws.length} redraws: the pace is kept up`);
        for (let i = 1; i < state.redraws.length; i++)
            ok(state.redraws[i] - state.redraws[i - 1] >= 250, `redraws ${state.redraws[i - 1]} and ${state.redraws[i]} ms`);
        ok(state.redraws[state.redraws.length - 1] >= 1999, 'the last change was drawn');
    },

    'nothing runs while nothing changes'() {
        const {pacer, state} = harness();
        pacer.request();
        state.advance(10000);
        equal(state.redraws.length, 1, 'redraws');
        equal(state.timers.length, 0, 'timers');
        equal(pacer.pending, false, 'pending');
    },

    'a change within the interval waits for its end, once'() {
        const {pacer, state} = harness();
        pacer.request();
        state.advance(100);
        pacer.request();
        pacer.request();
        equal(state.timers.length, 1, 'one timer');
        state.advance(149);
        equal(state.redraws.length, 1, 'not yet');
        state.advance(1);
        equal(state.redraws.length, 2, 'at 250 ms');
    },

    'cancel drops what waits'() {
        const {pacer, state} = harness();
        pacer.request();
        pacer.request();
        pacer.cancel();
        state.advance(1000);
        equal(state.redraws.length, 1, 'redraws');
    },
};
