// progressd on the session bus, read without ever blocking the compositor: every call is
// asynchronous (Gio.DBusConnection.call with a callback). It watches the name (no
// activation: a session without progressd has nothing to show, and that is no error),
// subscribes for Changed and Removed at four a second per task in the shell's locale,
// reads everything once with Changes(0), and feeds the model. It also owns
// org.progressd.ShellIndicator while it runs: progressd's StatusNotifierItem steps aside
// while that name has an owner, so a shell with an AppIndicator host shows one icon.
// It uses Gio and GLib only, not the shell's modules.

/* exported ProgressSource, BUS_NAME, INDICATOR_NAME */

const {Gio, GLib} = imports.gi;

var BUS_NAME = 'org.progressd.Progress1';
var INDICATOR_NAME = 'org.progressd.ShellIndicator';
const MANAGER_PATH = '/org/progressd/Progress1';
const MANAGER = 'org.progressd.Progress1.Manager';
const SUBSCRIPTION = 'org.progressd.Progress1.Subscription';
// progressd coalesces a task's Changed to this interval: the pace of the redraws.
const INTERVAL_SECONDS = 0.25;

var ProgressSource = class ProgressSource {
    // properties: the task properties to read; onChanges(kind, ...args): 'reset' (reset,
    // tasks, removed), 'changed' (name, properties), 'removed' (name), 'gone' ().
    constructor(connection, {properties, locale, onChanges}) {
        this._connection = connection;
        this._properties = properties;
        this._locale = locale;
        this._onChanges = onChanges;
        this._watch = 0;
        this._own = 0;
        this._signal = 0;
        this._owner = null;
        this._subscription = null;
        // Signals that came before Subscribe's reply named our subscription's path.
        this._early = [];
        // Each appearance of progressd: a reply for an earlier one is dropped.
        this._generation = 0;
    }

    start() {
        this._own = Gio.bus_own_name_on_connection(this._connection, INDICATOR_NAME,
            Gio.BusNameOwnerFlags.NONE, null, null);
        this._watch = Gio.bus_watch_name_on_connection(this._connection, BUS_NAME,
            Gio.BusNameWatcherFlags.NONE,
            (connection, name, owner) => this._appeared(owner),
            () => this._vanished());
    }

    stop() {
        if (this._watch)
            Gio.bus_unwatch_name(this._watch);
        this._watch = 0;
        if (this._subscription && this._owner)
            this._call('Unsubscribe', new GLib.Variant('(o)', [this._subscription]), null);
        this._forget();
        if (this._own)
            Gio.bus_unown_name(this._own);
        this._own = 0;
    }

    // RequestPause, RequestResume or RequestCancel on a task. A refusal (the task ended or
    // changed in between) needs no word: the next change shows the task as it is.
    request(method, name) {
        if (!this._owner)
            return;
        this._call(method, new GLib.Variant('(s)', [name]), null, error => {
            console.debug(`progressd: ${method}(${name}) was refused: ${error.message}`);
        });
    }

    _appeared(owner) {
        this._forget();
        const generation = ++this._generation;
        this._owner = owner;
        // Unicast from progressd's unique name; subscribed before the call, so that nothing
        // sent between Subscribe's reply and this callback is missed.
        this._signal = this._connection.signal_subscribe(owner, SUBSCRIPTION, null, null, null,
            Gio.DBusSignalFlags.NONE, (connection, sender, path, iface, member, parameters) =>
                this._received(path, member, parameters));
        const options = {
            'changes': new GLib.Variant('b', true),
            'announcements': new GLib.Variant('b', false),
            'interval-seconds': new GLib.Variant('d', INTERVAL_SECONDS),
            'locale': new GLib.Variant('s', this._locale),
        };
        this._call('Subscribe', new GLib.Variant('(a{sv})', [options]), generation, reply => {
            [this._subscription] = reply.deepUnpack();
            const early = this._early;
            this._early = [];
            for (const [path, member, parameters] of early)
                this._received(path, member, parameters);
            this._readAll(generation);
        }, error => {
            // Over progressd's caps: what Changes reads is shown, without later changes.
            console.warn(`progressd: Subscribe was refused: ${error.message}`);
            this._early = [];
            this._readAll(generation);
        });
    }

    // Every task once, with only the properties shown: what came in Changed before this
    // reply is older than it, what comes after is newer.
    _readAll(generation) {
        const options = {
            'properties': new GLib.Variant('as', this._properties),
            'locale': new GLib.Variant('s', this._locale),
        };
        this._call('Changes', new GLib.Variant('(ta{sv})', [0, options]), generation, reply => {
            const [, reset, tasks, removed] = reply.recursiveUnpack();
            this._onChanges('reset', reset, tasks, removed);
        }, error => console.warn(`progressd: Changes was refused: ${error.message}`));
    }

    _received(path, member, parameters) {
        if (this._subscription === null) {
            this._early.push([path, member, parameters]);
            return;
        }
        if (path !== this._subscription)
            return;
        if (member === 'Changed') {
            const [name, properties] = parameters.recursiveUnpack();
            this._onChanges('changed', name, properties);
        } else if (member === 'Removed') {
            this._onChanges('removed', parameters.deepUnpack()[0]);
        }
    }

    _vanished() {
        const had = this._owner !== null;
        this._forget();
        this._generation++;
        if (had)
            this._onChanges('gone');
    }

    _forget() {
        if (this._signal)
            this._connection.signal_unsubscribe(this._signal);
        this._signal = 0;
        this._owner = null;
        this._subscription = null;
        this._early = [];
    }

    // A call to progressd's manager at its unique name (never activating it), answered in
    // a callback on the main loop; `generation` null for calls that outlive an appearance.
    _call(method, parameters, generation, onReply = null, onError = null) {
        this._connection.call(this._owner, MANAGER_PATH, MANAGER, method, parameters, null,
            Gio.DBusCallFlags.NO_AUTO_START, -1, null, (connection, result) => {
                let reply;
                try {
                    reply = connection.call_finish(result);
                } catch (error) {
                    // progressd left meanwhile: the vanished callback says so, not an error.
                    if ((generation === null || generation === this._generation) && onError && this._owner !== null)
                        onError(error);
                    return;
                }
                if (generation !== null && generation !== this._generation)
                    return;
                if (onReply)
                    onReply(reply);
            });
    }
};
