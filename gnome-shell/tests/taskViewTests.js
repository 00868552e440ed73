import Gettext from 'gettext';
import GLib from 'gi://GLib';

import {equal, deepEqual, ok} from './assert.js';

// The module under test, the ES module (GNOME 45 and later) or the 43/44 one written from
// it: runTests.js sets it with use() before it runs the tests, once for each.
let describe, isolated, screenfulRows, formatPercent, catalogWords;
let TaskModel;
export function use(modules) {
    ({describe, isolated, screenfulRows, formatPercent, catalogWords} = modules.taskView);
    ({TaskModel} = modules.taskModel);
}


// progressd's catalogs as `make catalogs` builds them (make test builds them first).
function builtCatalogs() {
    const here = GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
    return GLib.build_filenamev([here, '..', '..', '.build', 'share', 'locale']);
}

function task(name, extra = {}) {
    return {
        Name: name, Title: name, State: 'running', Indeterminate: false, Fraction: 0, Label: '', Detail: '',
        Message: '', Cancellable: false, Pausable: false, CancelRequested: false, Parent: '', Weight: 1,
        Created: 0, Stalled: false, ...extra,
    };
}

export const tests = {
    'the summary names the live jobs and the overall percent, rounded down'() {
        const view = describe([task('a', {Fraction: 0.42}), task('b', {Fraction: 0.429})], {locale: 'en-US'});
        equal(view.summary, '2 jobs, 42%', 'summary');
        ok(view.visible, 'visible');
        equal(view.ring.live, 2, 'live');
    },

    'the overall fraction is weighted, leaving indeterminate and ended tasks out'() {
        const view = describe([
            task('a', {Fraction: 0.2, Weight: 3}), task('b', {Fraction: 0.6, Weight: 1}),
            task('c', {Indeterminate: true}), task('d', {State: 'finished', Fraction: 1}),
        ], {locale: 'en-US'});
        ok(Math.abs(view.ring.fraction - 0.3) < 1e-9, `fraction ${view.ring.fraction}`);
        equal(view.ring.indeterminate, false, 'not every live task is indeterminate');
        equal(view.summary, '3 jobs, 30%', 'summary');
    },

    'the percent is in the locale\'s format'() {
        equal(formatPercent(0.42, 'fr-FR'), '42\u00A0%', 'French');
        equal(formatPercent(0.999, 'en-US'), '99%', 'never 100% before the end');
    },

    'all indeterminate: in progress, and the ring pulses'() {
        const view = describe([task('a', {Indeterminate: true})]);
        equal(view.summary, '1 job, in progress', 'summary');
        ok(view.ring.indeterminate, 'indeterminate');
        equal(view.rows[0].percent, null, 'no percent');
    },

    'a lingering failure keeps the indicator and is named with its message'() {
        const view = describe([task('backup', {State: 'failed', Title: 'Backup', Message: 'disk full'})]);
        ok(view.visible, 'visible');
        equal(view.summary, '1 job failed', 'summary');
        equal(view.rows[0].status, 'disk full', 'status');
        ok(view.rows[0].failed, 'failed');
        deepEqual(view.rows[0].actions, [], 'no actions on an ended task');
        ok(view.anyEnded, 'something to clear');
    },

    'only finished tasks left: the indicator goes'() {
        const view = describe([task('a', {State: 'finished', Fraction: 1})]);
        equal(view.visible, false, 'visible');
        equal(view.summary, '', 'summary');
    },

    'rows: the most recent first, a screenful, then how many more'() {
        const tasks = [];
        for (let i = 0; i < 20; i++)
            tasks.push(task(`t${i}`, {Created: 1000 + i, Fraction: 0.5}));
        const view = describe(tasks, {maxRows: 8});
        deepEqual(view.rows.map(row => row.name), ['t19', 't18', 't17', 't16', 't15', 't14', 't13', 't12'], 'rows');
        equal(view.more, 12, 'more');
        equal(view.moreText, 'and 12 more', 'more text');
        equal(screenfulRows(800), 8, 'rows on an 800 pixel screen');
        equal(screenfulRows(100), 1, 'at least one');
    },

    'a row has the daemon\'s label and detail, and the buttons the task allows'() {
        const [row] = describe([task('copy', {
            Title: 'Copying photos', Fraction: 0.42, Label: '42 %', Detail: '3 of 10 files, about 3 minutes left',
            Cancellable: true, Pausable: true,
        })]).rows;
        equal(row.title, 'Copying photos', 'title');
        equal(row.status, '42 % · 3 of 10 files, about 3 minutes left', 'status');
        equal(row.percent, 42, 'percent');
        deepEqual(row.actions, ['pause', 'cancel'], 'actions');
        const [paused] = describe([task('p', {State: 'paused', Pausable: true, Label: '10%', Fraction: 0.1})]).rows;
        deepEqual(paused.actions, ['resume'], 'a paused task resumes');
        equal(paused.status, 'Paused · 10%', 'paused status');
        const [asked] = describe([task('c', {Cancellable: true, CancelRequested: true, Label: '5%'})]).rows;
        ok(asked.cancelRequested, 'cancel asked');
        equal(asked.status, 'Cancelling… · 5%', 'cancelling status');
    },

    'an empty title shows the name'() {
        equal(describe([task('backup', {Title: ''})]).rows[0].title, 'backup', 'title');
    },

    'client text that may reorder is isolated, other text left as it is'() {
        equal(isolated('Backup'), 'Backup', 'Latin');
        equal(isolated('גיבוי'), '\u2068גיבוי\u2069', 'Hebrew');
        equal(isolated('a\u202Eb\u202C'), '\u2068a\u202Eb\u202C\u2069', 'an override');
        equal(isolated('\u{10800}'), '\u2068\u{10800}\u2069', 'Cypriot, beyond the BMP');
        const [row] = describe([task('x', {Title: 'نسخ', State: 'failed', Message: 'القرص ممتلئ'})]).rows;
        equal(row.title, '\u2068نسخ\u2069', 'title');
        equal(row.status, '\u2068القرص ممتلئ\u2069', 'message');
    },

    'markup in a title stays text'() {
        const [row] = describe([task('x', {Title: '<b>bold</b> & co'})]).rows;
        equal(row.title, '<b>bold</b> & co', 'no escaping, no parsing: the labels take plain text');
    },

    'from a Changes reply through the model to the view'() {
        const model = new TaskModel();
        model.applyChanges(true, {
            copy: {Title: 'Copy', State: 'running', Fraction: 0.9, Label: '90%', Parent: '', Weight: 1, Created: 5},
            sub: {Title: 'Part', State: 'running', Fraction: 0.1, Parent: 'copy', Weight: 1, Created: 6},
        }, []);
        const view = describe(model.topLevel(), {locale: 'en-US'});
        deepEqual(view.rows.map(row => row.name), ['copy'], 'top-level only');
        equal(view.summary, '1 job, 90%', 'summary');
        model.applyRemoved('copy');
        equal(describe(model.topLevel()).visible, false, 'gone');
    },

    'the manager\'s Overall, when newer, is the ring\'s fraction and the summary\'s percent'() {
        const tasks = [task('a', {Fraction: 0.1}), task('b', {Fraction: 0.2})];
        const view = describe(tasks, {locale: 'en-US', overall: 0.905});
        ok(Math.abs(view.ring.fraction - 0.905) < 1e-9, `fraction ${view.ring.fraction}`);
        equal(view.summary, '2 jobs, 90%', 'summary');
        equal(describe(tasks, {locale: 'en-US', overall: null}).summary, '2 jobs, 15%', 'computed without it');
    },

    'the extension\'s words come from progressd\'s catalog: German'() {
        const catalogs = builtCatalogs();
        ok(GLib.file_test(GLib.build_filenamev([catalogs, 'de', 'LC_MESSAGES', 'progressd.mo']), GLib.FileTest.EXISTS),
            `the German catalog in ${catalogs} (make catalogs)`);
        const language = GLib.getenv('LANGUAGE');
        const messages = Gettext.setlocale(Gettext.LocaleCategory.MESSAGES, null);
        try {
            // gettext reads LANGUAGE in any locale but C; C.UTF-8 is in every glibc.
            Gettext.setlocale(Gettext.LocaleCategory.MESSAGES, 'C.UTF-8');
            GLib.setenv('LANGUAGE', 'de', true);
            Gettext.bindtextdomain('progressd', catalogs);
            const words = catalogWords(Gettext.domain('progressd'));
            equal(words.clearEnded, 'Beendete Aufträge entfernen', 'Clear ended tasks');
            equal(words.cancel, 'Abbrechen', 'Cancel');
            equal(words.more(12), 'und 12 weitere', 'and 12 more');
            const view = describe([task('a', {Fraction: 0.42}), task('b', {Fraction: 0.42})], {words, locale: 'de-DE'});
            equal(view.summary, '2 Aufträge, 42\u00a0%', 'summary');
        } finally {
            if (language === null)
                GLib.unsetenv('LANGUAGE');
            else
                GLib.setenv('LANGUAGE', language, true);
            Gettext.setlocale(Gettext.LocaleCategory.MESSAGES, messages);
        }
    },
};
