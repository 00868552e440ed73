#!/usr/bin/gjs
// Reports a job's progress to progressd from GJS, through Gio: a task of five files, one
// update a file, then finished; then reads back what a panel would show.
const { Gio, GLib } = imports.gi;

const SERVICE = 'org.progressd.Progress1';
const MANAGER = '/org/progressd/Progress1';
const bus = Gio.bus_get_sync(Gio.BusType.SESSION, null);

function manager(method, signature, args) {
    return bus.call_sync(SERVICE, MANAGER, `${SERVICE}.Manager`, method, new GLib.Variant(signature, args),
        null, Gio.DBusCallFlags.NONE, -1, null);
}

function taskProperty(path, name) {
    const reply = bus.call_sync(SERVICE, path, 'org.freedesktop.DBus.Properties', 'Get',
        new GLib.Variant('(ss)', [`${SERVICE}.Task`, name]), new GLib.VariantType('(v)'),
        Gio.DBusCallFlags.NONE, -1, null);
    return reply.recursiveUnpack()[0];
}

const files = ['beach.jpg', 'cat.jpg', 'dog.jpg', 'forest.jpg', 'snow.jpg'];
// "caller": the task fails at once if this program dies before it finishes.
const [path] = manager('Start', '(sa{sv})', ['photos', {
    title: new GLib.Variant('s', 'Copying photos'),
    total: new GLib.Variant('t', files.length),
    unit: new GLib.Variant('s', 'files'),
    lifetime: new GLib.Variant('s', 'caller'),
}]).deepUnpack();
files.forEach((name, index) => {
    // The real work on the file goes here.
    manager('Update', '(sa{sv})', ['photos', {
        completed: new GLib.Variant('t', index + 1),
        message: new GLib.Variant('s', name),
    }]);
});
manager('Finish', '(s)', ['photos']);
print(`photos: ${taskProperty(path, 'State')}, ${taskProperty(path, 'Detail')}`);
