// Written by scripts/shell-extension.py from gnome-shell/shared/taskView.js for GNOME Shell 43 and 44:
// edit that file, not this one (make test fails while the two differ).

// From the model's top-level tasks to what the indicator and its menu show: the ring, the
// summary (the indicator's accessible name), the rows, the words. Pure: the words and the
// percent format come in as functions, so that gjs tests it alone and the entry point
// passes the shell's gettext and locale.

/* exported mayReorder, isolated, formatPercent, englishWords, catalogWords, screenfulRows, describe */

const FSI = '\u2068';
const PDI = '\u2069';

// As progressd's ClientText.mayReorder: a right-to-left letter or a bidi control.
const REORDERING = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]|[\uD802-\uD803\uD83A-\uD83B][\uDC00-\uDFFF]/;

function mayReorder(text) {
    return REORDERING.test(text);
}

// A client's text in a first-strong isolate when it could reorder what surrounds it, as
// progressd's own texts put it; progressd already balanced its controls, so it can not
// close the isolate early.
function isolated(text) {
    return mayReorder(text) ? `${FSI}${text}${PDI}` : text;
}

// The whole percent, rounded down as progressd's Label is (only a finished task reads
// 100 %), in the locale's own format ("42%", "42 %", "%42").
function formatPercent(fraction, locale) {
    const whole = Math.floor(Math.max(0, Math.min(1, fraction)) * 100 + 1e-9);
    return new Intl.NumberFormat(locale, {style: 'percent', maximumFractionDigits: 0}).format(whole / 100);
}

// English, for tests and for a shell without progressd's catalog: the entry point passes
// gettext's versions.
var englishWords = {
    jobs: n => n === 1 ? '1 job' : `${n} jobs`,
    failed: n => n === 1 ? '1 failed' : `${n} failed`,
    jobsFailed: n => n === 1 ? '1 job failed' : `${n} jobs failed`,
    inProgress: 'in progress',
    paused: 'Paused',
    stalled: 'Stalled',
    finished: 'Finished',
    cancelled: 'Cancelled',
    failedTask: 'Failed',
    cancelling: 'Cancelling…',
    more: n => `and ${n} more`,
    cancel: 'Cancel',
    pause: 'Pause',
    resume: 'Resume',
    clearEnded: 'Clear ended tasks',
    actionOn: (action, title) => `${action} ${title}`,
};

// The words from a gettext domain (progressd's catalog: `domain` has gettext and ngettext,
// as imports.gettext.domain('progressd') gives), English where it has no entry.
function catalogWords(domain) {
    const _ = text => domain.gettext(text);
    const n_ = (one, many, n) => domain.ngettext(one, many, n).replace('%d', String(n));
    return {
        ...englishWords,
        jobs: n => n_('%d job', '%d jobs', n),
        failed: n => n_('%d failed', '%d failed', n),
        jobsFailed: n => n_('%d job failed', '%d jobs failed', n),
        inProgress: _('in progress'),
        paused: _('Paused'),
        stalled: _('Stalled'),
        finished: _('Finished'),
        cancelled: _('Cancelled'),
        failedTask: _('Failed'),
        cancelling: _('Cancelling…'),
        more: n => n_('and %d more', 'and %d more', n),
        cancel: _('Cancel'),
        pause: _('Pause'),
        resume: _('Resume'),
        clearEnded: _('Clear ended tasks'),
    };
}

// How many rows fit on a monitor `height` pixels high, below the panel and above the
// menu's last entries, at least one.
function screenfulRows(height, rowHeight = 72, reserved = 160) {
    return Math.max(1, Math.floor((height - reserved) / rowHeight));
}

function byRecency(a, b) {
    if (a.Created !== b.Created)
        return b.Created - a.Created;
    return a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0;
}

const LIVE = new Set(['running', 'paused']);

function describeRow(task, words, locale) {
    const live = LIVE.has(task.State);
    const title = isolated(task.Title !== '' ? task.Title : task.Name);
    const percent = task.Indeterminate ? null : Math.floor(task.Fraction * 100 + 1e-9);
    let status;
    if (task.State === 'failed')
        status = task.Message !== '' ? isolated(task.Message) : words.failedTask;
    else if (task.State === 'finished')
        status = words.finished;
    else if (task.State === 'cancelled')
        status = words.cancelled;
    else {
        // The daemon's label ("42 %") and detail ("3 of 10 files, about 3 minutes left"),
        // already in the shell's locale; a paused, stalled or cancelling task says so first.
        const parts = [];
        if (task.State === 'paused')
            parts.push(words.paused);
        else if (task.CancelRequested)
            parts.push(words.cancelling);
        else if (task.Stalled)
            parts.push(words.stalled);
        parts.push(task.Indeterminate ? words.inProgress : task.Label || formatPercent(task.Fraction, locale));
        if (task.Detail !== '')
            parts.push(task.Detail);
        status = parts.join(' · ');
    }
    const actions = [];
    if (live && task.Pausable)
        actions.push(task.State === 'paused' ? 'resume' : 'pause');
    if (live && task.Cancellable)
        actions.push('cancel');
    return {
        name: task.Name,
        title,
        state: task.State,
        live,
        failed: task.State === 'failed',
        indeterminate: live && task.Indeterminate,
        fraction: task.State === 'finished' ? 1 : task.Indeterminate ? 0 : task.Fraction,
        percent: task.State === 'finished' ? 100 : percent,
        status,
        actions,
        // A cancel already asked for shows, greyed: asking again would change nothing.
        cancelRequested: task.CancelRequested,
    };
}

// Everything drawn, from the model's top-level tasks. `maxRows`: a screenful; `overall`:
// the manager's Overall fraction when it is newer than the tasks' (null: compute it).
function describe(tasks, {maxRows = 8, words = englishWords, locale = undefined, overall = null} = {}) {
    const live = tasks.filter(task => LIVE.has(task.State));
    const failed = tasks.filter(task => task.State === 'failed');
    // As progressd's Overall: the weighted mean of the live determinate tasks' fractions.
    let weighted = 0;
    let weights = 0;
    for (const task of live) {
        if (task.Indeterminate)
            continue;
        weighted += task.Weight * task.Fraction;
        weights += task.Weight;
    }
    const fraction = overall !== null ? overall : weights > 0 ? weighted / weights : 0;
    const indeterminate = live.length > 0 && live.every(task => task.Indeterminate);
    const ring = {
        fraction,
        indeterminate,
        failed: failed.length > 0,
        paused: live.length > 0 && live.every(task => task.State === 'paused'),
        stalled: live.some(task => task.Stalled),
        live: live.length,
    };
    const pieces = [];
    if (live.length > 0) {
        pieces.push(words.jobs(live.length));
        pieces.push(indeterminate ? words.inProgress : formatPercent(fraction, locale));
        if (failed.length > 0)
            pieces.push(words.failed(failed.length));
    } else if (failed.length > 0) {
        pieces.push(words.jobsFailed(failed.length));
    }
    const sorted = tasks.slice().sort(byRecency);
    const shown = sorted.slice(0, maxRows);
    return {
        visible: live.length > 0 || failed.length > 0,
        ring,
        summary: pieces.join(', '),
        rows: shown.map(task => describeRow(task, words, locale)),
        more: sorted.length - shown.length,
        moreText: sorted.length > shown.length ? words.more(sorted.length - shown.length) : '',
        anyEnded: tasks.some(task => !LIVE.has(task.State)),
    };
}
