// For runTests.js alone: GNOME Shell 43 and 44's misc/extensionUtils, as far as the
// extension's 43/44 modules use it to import each other (Me.imports.taskView): the
// extension is the folder runTests.js put first on the search path.

/* exported getCurrentExtension */

function getCurrentExtension() {
    return {imports};
}
