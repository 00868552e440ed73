import {equal, deepEqual, ok} from './assert.js';

// The module under test, the ES module (GNOME 45 and later) or the 43/44 one written from
// it: runTests.js sets it with use() before it runs the tests, once for each.
let TaskModel;
export function use(modules) {
    ({TaskModel} = modules.taskModel);
}

function running(title, fraction, extra = {}) {
    return {Title: title, State: 'running', Fraction: fraction, Parent: '', Created: 1, ...extra};
}

export const tests = {
    'a reset replaces what was known, and counts as a change'() {
        const model = new TaskModel();
        model.applyChanges(true, {a: running('A', 0.1)}, []);
        const version = model.version;
        ok(model.applyChanges(true, {b: running('B', 0.2)}, []), 'changed');
        ok(model.version > version, 'version grew');
        deepEqual(model.topLevel().map(t => t.Name), ['b'], 'only the reset\'s tasks');
    },

    'removals apply before the tasks of the same reply: a name removed and started again stays'() {
        const model = new TaskModel();
        model.applyChanges(true, {a: running('A', 0.5)}, []);
        model.applyChanges(false, {a: running('A again', 0)}, ['a']);
        equal(model.task('a').Title, 'A again', 'title');
        equal(model.task('a').Fraction, 0, 'fraction from the new start');
    },

    'a change to a property nobody shows is no change'() {
        const model = new TaskModel();
        model.applyChanged('a', running('A', 0.5));
        const version = model.version;
        equal(model.applyChanged('a', {Serial: 7, Updated: 123, Rate: 2, AccessibleText: 'A: 50 percent'}), false, 'changed');
        equal(model.version, version, 'version');
        equal(model.applyChanged('a', {Fraction: 0.5}), false, 'the same value again');
        ok(model.applyChanged('a', {Fraction: 0.6}), 'a new fraction');
    },

    'children are known but not listed'() {
        const model = new TaskModel();
        model.applyChanged('parent', running('P', 0.5));
        model.applyChanged('child', running('C', 0.5, {Parent: 'parent'}));
        deepEqual(model.topLevel().map(t => t.Name), ['parent'], 'top level');
        ok(model.task('child'), 'the child is kept');
    },

    'clearing hides ended tasks until their name starts again'() {
        const model = new TaskModel();
        model.applyChanged('done', running('Done', 1, {State: 'finished'}));
        model.applyChanged('bad', running('Bad', 0.3, {State: 'failed', Message: 'disk full'}));
        model.applyChanged('live', running('Live', 0.3));
        ok(model.dismissEnded(), 'something was cleared');
        deepEqual(model.topLevel().map(t => t.Name), ['live'], 'after clearing');
        equal(model.dismissEnded(), false, 'nothing more to clear');
        model.applyChanged('bad', {Message: 'disk still full'});
        deepEqual(model.topLevel().map(t => t.Name), ['live'], 'an ended task that changes stays hidden');
        model.applyChanged('bad', {State: 'running', Message: ''});
        deepEqual(model.topLevel().map(t => t.Name).sort(), ['bad', 'live'], 'restarted, it shows');
    },

    'a removed name forgets that it was cleared'() {
        const model = new TaskModel();
        model.applyChanged('x', running('X', 1, {State: 'finished'}));
        model.dismissEnded();
        model.applyRemoved('x');
        model.applyChanged('x', running('X', 1, {State: 'finished'}));
        deepEqual(model.topLevel().map(t => t.Name), ['x'], 'a new task of that name');
    },

    'progressd leaving clears everything, once'() {
        const model = new TaskModel();
        model.applyChanged('a', running('A', 0.5));
        ok(model.clear(), 'first clear');
        equal(model.clear(), false, 'second clear');
        equal(model.size, 0, 'size');
    },

    'a removal of an unknown name changes nothing'() {
        const model = new TaskModel();
        equal(model.applyRemoved('nobody'), false, 'changed');
        equal(model.version, 0, 'version');
    },

    'the manager\'s Overall is the ring\'s fraction until a Changes reply brings the tasks\' own'() {
        const model = new TaskModel();
        model.applyChanges(true, {a: running('A', 0.1)}, []);
        equal(model.overallFraction, null, 'the tasks\' values are current after a reply');
        const version = model.version;
        ok(model.applyOverall({fraction: 0.42, state: 'running', active: 1}), 'a new percent');
        equal(model.overallFraction, 0.42, 'overall');
        ok(model.version > version, 'version grew');
        ok(model.applyChanges(false, {a: {Fraction: 0.43}}, []), 'a reply after it is a change');
        equal(model.overallFraction, null, 'the tasks\' own again');
        equal(model.task('a').Fraction, 0.43, 'fraction');
    },

    'an Overall move within the whole percent marks nothing; one across it does'() {
        const model = new TaskModel();
        model.applyOverall({fraction: 0.421});
        const version = model.version;
        equal(model.applyOverall({fraction: 0.428}), false, 'still 42 %');
        equal(model.version, version, 'version');
        equal(model.overallFraction, 0.428, 'the value is kept all the same');
        ok(model.applyOverall({fraction: 0.43}), '43 %');
        equal(model.applyOverall({state: 'idle'}), false, 'no fraction, nothing');
    },

    'an Overall that counts no live task waits for the State change: an ending task does not empty the ring first'() {
        const model = new TaskModel();
        model.applyChanges(true, {a: running('A', 0.9)}, []);
        const version = model.version;
        equal(model.applyOverall({fraction: 0, state: 'idle', active: 0}), false, 'the task still runs here');
        equal(model.overallFraction, null, 'the ring keeps the task\'s own 90 %');
        equal(model.version, version, 'version');
        ok(model.applyChanged('a', {State: 'finished', Fraction: 1}), 'the State change');
        equal(model.overallFraction, 0, 'the Overall that waited');
    },

    'an Overall that counts a task not known yet waits for it, and the ring keeps the last Overall'() {
        const model = new TaskModel();
        model.applyChanges(true, {a: running('A', 0.1)}, []);
        ok(model.applyOverall({fraction: 0.5, state: 'running', active: 1}), 'agrees');
        equal(model.applyOverall({fraction: 0.3, state: 'running', active: 2}), false, 'two live, one known');
        equal(model.overallFraction, 0.5, 'what the ring shows');
        ok(model.applyChanged('b', running('B', 0.1)), 'the new task');
        equal(model.overallFraction, 0.3, 'the Overall that waited');
        equal(model.applyOverall({fraction: 0.2, state: 'running', active: 1}), false, 'b still runs here');
        ok(model.applyRemoved('b'), 'removed');
        equal(model.overallFraction, 0.2, 'after the removal');
    },

    'progressd leaving forgets its Overall too'() {
        const model = new TaskModel();
        model.applyChanged('a', running('A', 0.5));
        model.applyOverall({fraction: 0.5});
        ok(model.clear(), 'cleared');
        equal(model.overallFraction, null, 'overall');
    },
};
