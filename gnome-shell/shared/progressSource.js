// progressd on the session bus, read without ever blocking the compositor: every call is
// asynchronous (Gio.DBusConnection.call with a callback). It watches the name (no
// activation: a session without progressd has nothing to show, and that is no error),
// reads everything once with Changes(0) (in pages, when there are more tasks than one reply
// carries), and then costs the shell only what it shows:
//  - the manager's Overall for the ring and the summary, as OverallChanged on our
//    subscription with "overall-steps" (the ring's pixels, the whole percent), so that it
//    comes when what the indicator shows would change: a transfer moving 1 % a second is a
//    signal or two a second, not ten, and each signal wakes the compositor's main loop
//    (the manager's PropertiesChanged, ten a second at most, if Subscribe is refused);
//  - on the same subscription, Changed and Removed with an interval of an hour, so that only what
//    progressd sends at once reaches the shell: new and removed tasks, and changes of
//    State, Indeterminate, Stalled and CancelRequested (what the ring and the summary
//    count), not a signal per task for every move;
//  - Changes(since) when the extension asks (poll), at its pace, while the menu is open:
//    the rows' fractions, labels and details, only what changed since the last one. It also owns
// org.progressd.ShellIndicator while it runs: progressd's StatusNotifierItem steps aside
// while that name has an owner, so a shell with an AppIndicator host shows one icon.
// It uses Gio and GLib only, not the shell's modules.

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Json from 'gi://Json';

export const BUS_NAME = 'org.progressd.Progress1';
export const INDICATOR_NAME = 'org.progressd.ShellIndicator';
const MANAGER_PATH = '/org/progressd/Progress1';
const MANAGER = 'org.progressd.Progress1.Manager';
const SUBSCRIPTION = 'org.progressd.Progress1.Subscription';
const PROPERTIES_INTERFACE = 'org.freedesktop.DBus.Properties';
const LIMIT_EXCEEDED = 'org.progressd.Progress1.Error.LimitExceeded';
// Tasks and their properties (a{sa{sv}} or one task's a{sv}) as JavaScript objects, the
// values unwrapped, as recursiveUnpack() gives them: json-glib writes them as JSON in C,
// and JSON.parse reads that. With the menu open, a Changes reply of 100 moving tasks took
// 10 ms a second of the compositor's main loop through recursiveUnpack, 0.4 ms this way.
export function unpackProperties(variant) {
    const [text] = Json.gvariant_serialize_data(variant);
    return JSON.parse(text);
}

// The subscription's interval (progressd's most): a progress move of a task is held that
// long, its state changes come at once. The rows read progress with Changes(since).
const INTERVAL_SECONDS = 3600;

export class ProgressSource {
    // properties: the task properties to read; overallSteps(): the resolutions the overall
    // is shown at (progressd's "overall-steps"); onChanges(kind, ...args): 'changes' (reset,
    // tasks, removed: a Changes reply), 'changed' (name, properties), 'removed' (name),
    // 'overall' (the manager's Overall, unpacked), 'gone' ().
    constructor(connection, {properties, overallSteps, locale, onChanges}) {
        this._connection = connection;
        this._properties = properties;
        this._overallSteps = overallSteps;
        this._locale = locale;
        this._onChanges = onChanges;
        this._watch = 0;
        this._own = 0;
        this._generation = 0;
        this._forget();
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
        // A reply still on its way after this finds a newer generation and is dropped.
        this._generation++;
        if (this._own)
            Gio.bus_unown_name(this._own);
        this._own = 0;
    }

    // RequestPause, RequestResume or RequestCancel on a task. A refusal (the task ended or
    // changed in between) needs no word: the next change shows the task as it is.
    request(method, name) {
        if (!this._owner)
            return;
        this._call(method, new GLib.Variant('(s)', [name]), null, null, error => {
            console.debug(`progressd: ${method}(${name}) was refused: ${error.message}`);
        });
    }

    // Reads what changed since the last read with one Changes(since) call, unless one is on
    // its way or the first read has not come back (it brings everything).
    poll() {
        if (!this._owner || this._serial === null || this._polling)
            return;
        this._read(this._serial, this._generation);
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
            'overall-steps': new GLib.Variant('au', this._overallSteps()),
            'locale': new GLib.Variant('s', this._locale),
        };
        this._call('Subscribe', new GLib.Variant('(a{sv})', [options]), generation, reply => {
            [this._subscription] = reply.deepUnpack();
            const early = this._early;
            this._early = [];
            for (const [path, member, parameters] of early)
                this._received(path, member, parameters);
            this._read(0, generation);
        }, error => {
            // Over progressd's caps (or a progressd without "overall-steps"): what Changes
            // reads is shown, without later changes, and the ring follows the manager's
            // Overall, broadcast at most ten times a second.
            console.warn(`progressd: Subscribe was refused: ${error.message}`);
            this._early = [];
            this._overallSignal = this._connection.signal_subscribe(owner, PROPERTIES_INTERFACE,
                'PropertiesChanged', MANAGER_PATH, MANAGER, Gio.DBusSignalFlags.NONE,
                (connection, sender, path, iface, member, parameters) => this._managerChanged(parameters));
            this._read(0, generation);
        });
    }

    // The tasks that changed since `since` (0: every task), with only the properties shown:
    // what came in Changed before this reply is older than it, what comes after is newer.
    _read(since, generation) {
        const options = {
            'properties': new GLib.Variant('as', this._properties),
            'locale': new GLib.Variant('s', this._locale),
        };
        this._polling = true;
        this._call('Changes', new GLib.Variant('(ta{sv})', [since, options]), generation, reply => {
            this._polling = false;
            this._serial = reply.get_child_value(0).get_uint64();
            const reset = reply.get_child_value(1).get_boolean();
            const tasks = unpackProperties(reply.get_child_value(2));
            this._onChanges('changes', reset, tasks, reply.get_child_value(3).get_strv());
        }, error => {
            // More tasks than one reply may carry: the Serial, then every task in pages.
            if (Gio.DBusError.get_remote_error(error) === LIMIT_EXCEEDED) {
                this._readPaged(generation);
                return;
            }
            this._polling = false;
            console.warn(`progressd: Changes was refused: ${error.message}`);
        });
    }

    // Every task read as progressd says to when one Changes reply can not hold them: its
    // Serial first, then SnapshotPage to the last page, as one reset; the next Changes from
    // that Serial brings what changed meanwhile.
    _readPaged(generation) {
        this._callOn(PROPERTIES_INTERFACE, 'Get', new GLib.Variant('(ss)', [MANAGER, 'Serial']), generation,
            reply => this._readPage(reply.get_child_value(0).get_variant().get_uint64(), '', {}, generation),
            error => this._pagingFailed(error));
    }

    _readPage(serial, after, tasks, generation) {
        this._call('SnapshotPage', new GLib.Variant('(ssu)', [this._locale, after, 0]), generation, reply => {
            const page = unpackProperties(reply.get_child_value(0));
            const [next] = reply.get_child_value(1).get_string();
            for (const [name, properties] of Object.entries(page)) {
                const shown = {};
                for (const key of this._properties)
                    shown[key] = properties[key];
                tasks[name] = shown;
            }
            if (next !== '') {
                this._readPage(serial, next, tasks, generation);
                return;
            }
            this._polling = false;
            this._serial = serial;
            this._onChanges('changes', true, tasks, []);
        }, error => this._pagingFailed(error));
    }

    _pagingFailed(error) {
        this._polling = false;
        console.warn(`progressd: reading the tasks in pages failed: ${error.message}`);
    }

    // The manager's PropertiesChanged, when Subscribe was refused.
    _managerChanged(parameters) {
        const overall = parameters.get_child_value(1).lookup_value('Overall', null);
        if (overall)
            this._overallChanged(overall);
    }

    // Only the two values the ring takes are unpacked.
    _overallChanged(overall) {
        const fraction = overall.lookup_value('fraction', null);
        const active = overall.lookup_value('active', null);
        this._onChanges('overall', {fraction: fraction?.get_double(), active: active?.get_uint64()});
    }

    _received(path, member, parameters) {
        if (this._subscription === null) {
            this._early.push([path, member, parameters]);
            return;
        }
        if (path !== this._subscription)
            return;
        if (member === 'Changed') {
            const [name] = parameters.get_child_value(0).get_string();
            this._onChanges('changed', name, unpackProperties(parameters.get_child_value(1)));
        } else if (member === 'Removed') {
            this._onChanges('removed', parameters.deepUnpack()[0]);
        } else if (member === 'OverallChanged') {
            this._overallChanged(parameters.get_child_value(0));
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
        if (this._overallSignal)
            this._connection.signal_unsubscribe(this._overallSignal);
        this._signal = 0;
        this._overallSignal = 0;
        this._owner = null;
        // The Serial of the last Changes reply (null before the first), and whether a
        // Changes call is on its way.
        this._serial = null;
        this._polling = false;
        this._subscription = null;
        // Signals that came before Subscribe's reply named our subscription's path.
        this._early = [];
    }

    // A call to progressd's manager at its unique name (never activating it), answered in
    // a callback on the main loop; `generation` null for calls that outlive an appearance.
    _call(method, parameters, generation, onReply = null, onError = null) {
        this._callOn(MANAGER, method, parameters, generation, onReply, onError);
    }

    // The same, on another interface of the manager's object (its properties).
    _callOn(iface, method, parameters, generation, onReply = null, onError = null) {
        this._connection.call(this._owner, MANAGER_PATH, iface, method, parameters, null,
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
}
