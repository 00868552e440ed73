import GLib from 'gi://GLib';

import {equal} from './assert.js';

// The modules under test (see runTests.js).
let unpackProperties;
export function use(modules) {
    ({unpackProperties} = modules.progressSource);
}

// A Changes reply's tasks with every type progressd's task properties have, and texts a
// client chose (quotes, a backslash, a newline, non-ASCII), as recursiveUnpack reads them.
function changedTasks() {
    return new GLib.Variant('a{sa{sv}}', {
        'copy "1"': {
            Title: new GLib.Variant('s', 'Photos \\ "2026"\nÉté — 写真'),
            State: new GLib.Variant('s', 'running'),
            Fraction: new GLib.Variant('d', 0.25),
            Weight: new GLib.Variant('d', 1),
            Indeterminate: new GLib.Variant('b', false),
            Stalled: new GLib.Variant('b', true),
            Created: new GLib.Variant('t', 1796587113652313),
            Parent: new GLib.Variant('s', ''),
        },
        'empty': {},
    });
}

export const tests = {
    'a Changes reply reads as recursiveUnpack reads it'() {
        const variant = changedTasks();
        equal(JSON.stringify(unpackProperties(variant)), JSON.stringify(variant.recursiveUnpack()));
    },
    'one task\'s properties read the same way'() {
        const variant = changedTasks().lookup_value('copy "1"', null);
        const unpacked = unpackProperties(variant);
        equal(unpacked.Title, 'Photos \\ "2026"\nÉté — 写真');
        equal(unpacked.Created, 1796587113652313);
        equal(unpacked.Weight, 1);
        equal(unpacked.Stalled, true);
    },
};
