import {equal, ok} from './assert.js';

// The modules under test, the ES modules (GNOME 45 and later) or the 43/44 ones written
// from them: runTests.js sets them with use() before it runs the tests, once for each.
let IndicatorPlan, TaskModel, pixelsPerTurn;
export function use(modules) {
    ({IndicatorPlan} = modules.indicatorPlan);
    ({TaskModel} = modules.taskModel);
    ({pixelsPerTurn} = modules.ringShape);
}

// A ring 40 device pixels round: a pixel is 2.5 % of a turn, its edges at 1.25 % + 2.5 k.
const PIXELS = 40;

// 100 running top-level tasks, as the first Changes reply brings them.
function hundredTasks() {
    const model = new TaskModel();
    const tasks = {};
    for (let i = 0; i < 100; i++)
        tasks[`t${i}`] = {Title: `T${i}`, State: 'running', Fraction: 0.5, Parent: '', Created: i, Weight: 1};
    model.applyChanges(true, tasks, []);
    return model;
}

// The model's tasks replaced by ones that count every read of a property.
function countReads(model) {
    const counter = {reads: 0};
    for (const [name, task] of model._tasks) {
        model._tasks.set(name, new Proxy(task, {
            get(target, key) {
                counter.reads++;
                return target[key];
            },
        }));
    }
    return counter;
}

// An Overall as the controller applies it: a plan only when moves() says it would show.
function overall(plan, model, fraction, options = {}) {
    model.applyOverall({fraction, state: 'running', active: 100});
    if (!plan.moves(model, PIXELS))
        return null;
    return plan.plan(model, {pixelsPerTurn: PIXELS, ...options});
}

export const tests = {
    'the first plan draws the ring and the summary'() {
        const plan = new IndicatorPlan({words: undefined, locale: 'en-US'});
        const drawn = plan.plan(hundredTasks(), {pixelsPerTurn: PIXELS});
        ok(drawn.visible, 'visible');
        ok(drawn.shape !== null, 'the ring');
        equal(drawn.summary, '100 jobs, 50%', 'summary');
        equal(drawn.view, null, 'no rows while the menu is closed');
    },

    'an Overall that moves the arc less than a pixel and keeps the whole percent draws nothing'() {
        const model = hundredTasks();
        const plan = new IndicatorPlan({locale: 'en-US'});
        plan.plan(model, {pixelsPerTurn: PIXELS});
        for (const fraction of [0.501, 0.505, 0.5099, 0.5001]) {
            model.applyOverall({fraction, state: 'running', active: 100});
            equal(plan.moves(model, PIXELS), false, `${fraction}: no move`);
            const drawn = plan.plan(model, {pixelsPerTurn: PIXELS});
            equal(drawn.shape, null, `${fraction}: the ring is not drawn again`);
            equal(drawn.summary, null, `${fraction}: nor the summary`);
        }
    },

    'a pixel of the arc redraws the ring alone; the whole percent the summary alone'() {
        const model = hundredTasks();
        const plan = new IndicatorPlan({locale: 'en-US'});
        model.applyOverall({fraction: 0.437, state: 'running', active: 100});
        plan.plan(model, {pixelsPerTurn: PIXELS});
        // 0.437 and 0.438: 43 % both, pixels 17.48 and 17.52.
        const pixel = overall(plan, model, 0.438);
        ok(pixel?.shape, 'the arc moved a pixel');
        equal(pixel.summary, null, 'the summary keeps its 43 %');
        // 0.438 and 0.44: pixels 17.52 and 17.6, 43 % and 44 %.
        const percent = overall(plan, model, 0.44);
        equal(percent?.shape, null, 'the arc stays on its pixel');
        equal(percent.summary, '100 jobs, 44%', 'the summary moves');
    },

    'the pixel is the real one: at scale 2 a ring has twice the pixels to move by'() {
        equal(pixelsPerTurn(16, 2), 2 * pixelsPerTurn(16, 1), 'pixels round');
        const model = hundredTasks();
        const plan = new IndicatorPlan({locale: 'en-US'});
        const one = pixelsPerTurn(16, 1);
        // An arc's end on a pixel's middle at scale 1 (the arc starts at twelve o'clock, a
        // quarter turn before Cairo's zero), and a third of a pixel on, within the percent.
        let from = 0;
        for (let pixel = 0; pixel < one; pixel++) {
            from = (pixel + one / 4) / one;
            if (Math.floor(from * 100) === Math.floor((from + 0.35 / one) * 100))
                break;
        }
        model.applyOverall({fraction: from, state: 'running', active: 100});
        plan.plan(model, {pixelsPerTurn: one});
        // A third of a pixel at scale 1 is two thirds of one at scale 2, past its middle.
        model.applyOverall({fraction: from + 0.35 / one, state: 'running', active: 100});
        ok(plan.moves(model, 2 * one), 'at scale 2 it moves');
        equal(plan.plan(model, {pixelsPerTurn: one}).shape, null, 'at scale 1 it does not');
    },

    'with the menu closed an Overall reads no task, however many there are'() {
        const model = hundredTasks();
        const plan = new IndicatorPlan({locale: 'en-US'});
        plan.plan(model, {pixelsPerTurn: PIXELS});
        const counter = countReads(model);
        let drawn = 0;
        for (let step = 0; step < 1000; step++) {
            if (overall(plan, model, (step % 997) / 1000))
                drawn++;
        }
        ok(drawn > 0, 'the ring and the summary moved');
        equal(counter.reads, 0, 'task properties read');
    },

    'a task\'s state change is read; the rows are worked out only while the menu is open'() {
        const model = hundredTasks();
        const plan = new IndicatorPlan({locale: 'en-US'});
        plan.plan(model, {pixelsPerTurn: PIXELS});
        model.applyChanged('t0', {State: 'paused'});
        const closed = plan.plan(model, {pixelsPerTurn: PIXELS});
        equal(closed.view, null, 'closed: no rows');
        const opened = plan.plan(model, {open: true, maxRows: 3, pixelsPerTurn: PIXELS});
        equal(opened.view?.rows.length, 3, 'open: a screenful of rows');
        equal(overall(plan, model, 0.9, {open: true})?.view, null, 'an Overall alone changes no row');
        model.applyChanges(false, {t99: {Fraction: 0.75}}, []);
        ok(plan.plan(model, {open: true, pixelsPerTurn: PIXELS}).view, 'a Changes reply does');
    },

    'the last live task ending hides the indicator, and a new one draws everything again'() {
        const model = new TaskModel();
        const plan = new IndicatorPlan({locale: 'en-US'});
        model.applyChanged('a', {Title: 'A', State: 'running', Fraction: 0.2, Parent: ''});
        plan.plan(model, {pixelsPerTurn: PIXELS});
        model.applyChanged('a', {State: 'finished'});
        equal(plan.plan(model, {pixelsPerTurn: PIXELS}).visible, false, 'hidden');
        model.applyChanged('b', {Title: 'B', State: 'running', Fraction: 0.2, Parent: ''});
        const again = plan.plan(model, {pixelsPerTurn: PIXELS});
        ok(again.shape && again.summary, 'ring and summary drawn again');
    },
};
