// make test's gjs step: the extension's pure modules (model, view, ring, pacer) tested
// without GNOME Shell. Each *Tests.js here exports `tests`, a map of name to function;
// a test throws to fail. Exits 1 if any failed.
//   gjs gnome-shell/tests/runTests.js

const System = imports.system;
const {GLib, Gio} = imports.gi;

const here = GLib.path_get_dirname(Gio.File.new_for_path(System.programInvocationName).get_path());
imports.searchPath.unshift(GLib.build_filenamev([here, '..', 'progressd@progressd.org']));
imports.searchPath.unshift(here);

const suites = ['taskModelTests', 'taskViewTests', 'ringShapeTests', 'redrawPacerTests'];
let failed = 0;
let passed = 0;
for (const suite of suites) {
    for (const [name, test] of Object.entries(imports[suite].tests)) {
        try {
            test();
            passed++;
        } catch (error) {
            failed++;
            printerr(`FAIL ${suite}: ${name}\n  ${error.message}\n${error.stack}`);
        }
    }
}
print(`gjs: ${passed} passed, ${failed} failed (${suites.length} suites)`);
if (failed > 0)
    System.exit(1);
