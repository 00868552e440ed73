// make test's gjs step: the extension's modules that run without GNOME Shell (model, view,
// ring, pacer, plan, the source's unpacking), tested twice: as the ES modules in gnome-shell/shared/ that GNOME 45 and
// later load, and as the 43/44 scripts scripts/shell-extension.py writes from them into
// .build/gnome-shell-43/progressd@progressd.org/ (`make extension-forms`). Each *Tests.js
// here exports `tests`, a map of name to function (a test throws to fail), and
// `use(modules)`, which sets the modules it tests.
// Both forms must also export the same names, those of the D-Bus source too. Exits 1 if any
// test failed.
//   gjs -m gnome-shell/tests/runTests.js

import GLib from 'gi://GLib';
import System from 'system';

import * as redrawPacer from '../shared/redrawPacer.js';
import * as ringShape from '../shared/ringShape.js';
import * as taskModel from '../shared/taskModel.js';
import * as taskView from '../shared/taskView.js';
import * as progressSource from '../shared/progressSource.js';
import * as indicatorPlan from '../shared/indicatorPlan.js';

import * as taskModelTests from './taskModelTests.js';
import * as taskViewTests from './taskViewTests.js';
import * as ringShapeTests from './ringShapeTests.js';
import * as redrawPacerTests from './redrawPacerTests.js';
import * as indicatorPlanTests from './indicatorPlanTests.js';
import * as progressSourceTests from './progressSourceTests.js';

const suites = {
    taskModelTests, taskViewTests, ringShapeTests, redrawPacerTests, indicatorPlanTests, progressSourceTests,
};
const here = GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
const legacyFolder = ['..', '..', '.build', 'gnome-shell-43', 'progressd@progressd.org'];
imports.searchPath.unshift(GLib.build_filenamev([here, ...legacyFolder]));
// The shell's misc/extensionUtils, for the 43/44 modules that import their siblings.
imports.searchPath.push(GLib.build_filenamev([here, 'shell43']));

const entries = {
    'ES modules (45 and later)': {redrawPacer, ringShape, taskModel, taskView, progressSource, indicatorPlan},
    '43/44 scripts': {
        redrawPacer: imports.redrawPacer,
        ringShape: imports.ringShape,
        taskModel: imports.taskModel,
        taskView: imports.taskView,
        progressSource: imports.progressSource,
        indicatorPlan: imports.indicatorPlan,
    },
};

let failed = 0;
let passed = 0;
const [modern, legacy] = Object.values(entries);
for (const [name, module] of Object.entries(modern)) {
    const exported = Object.keys(module).sort();
    const written = exported.filter(key => legacy[name][key] !== undefined);
    if (written.length === exported.length) {
        passed++;
    } else {
        failed++;
        printerr(`FAIL ${name}: the 43/44 script lacks ${exported.filter(key => !written.includes(key))}`);
    }
}
for (const [entry, modules] of Object.entries(entries)) {
    for (const [suite, {use, tests}] of Object.entries(suites)) {
        use(modules);
        for (const [name, test] of Object.entries(tests)) {
            try {
                test();
                passed++;
            } catch (error) {
                failed++;
                printerr(`FAIL ${entry}, ${suite}: ${name}\n  ${error.message}\n${error.stack}`);
            }
        }
    }
}
print(`gjs: ${passed} passed, ${failed} failed (${Object.keys(suites).length} suites, ` +
    `for ${Object.keys(entries).join(' and ')})`);
if (failed > 0)
    System.exit(1);
