// progressd on the session bus, read without ever blocking the compositor: every call is
// asynchronous (Gio.DBusConnection.call with a callback). It watches the name (no
// activation: a session without progressd has nothing to show, and that is no error),
// reads everything once with Changes(0) (in pages, when there are more tasks than one reply
// carries), and then costs the shell only what it shows:
//  - the manager's Overall (PropertiesChanged, coalesced by progressd to ten a second at
//    most) for the ring's fraction;
//  - a subscription for Changed and Removed whose interval is an hour, so that only what
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

export const BUS_NAME = 'org.progressd.Progress1';
export const INDICATOR_NAME = 'org.progressd.ShellIndicator';
const MANAGER_PATH = '/org/progressd/Progress1';
const MANAGER = 'org.progressd.Progress1.Manager';
const SUBSCRIPTION = 'org.progressd.Progress1.Subscription';
const PROPERTIES_INTERFACE = 'org.freedesktop.DBus.Properties';
const LIMIT_EXCEEDED = 'org.progressd.Progress1.Error.LimitExceeded';
// The subscription's interval (progressd's most): a progress move of a task is held that
// long, its state changes come at once. The rows read progress with Changes(since).
const INTERVAL_SECONDS = 3600;

export class ProgressSource {
    // properties: the task properties to read; onChanges(kind, ...args): 'changes' (reset,
    // tasks, removed: a Changes reply), 'changed' (name, properties), 'removed' (name),
    // 'overall' (the manager's Overall, unpacked), 'gone' ().
    constructor(connection, {properties, locale, onChanges}) {
        this._connection = connection;
        this._properties = properties;
        this._locale = locale;
        this._onChanges = onChanges;
        this._watch = 0;
        this._own = 0;
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
        this._call(method, new GLib.Variant('(s)', [name]), null, error => {
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
        // The manager's Overall, broadcast by progressd at most ten times a second.
        this._overallSignal = this._connection.signal_subscribe(owner, PROPERTIES_INTERFACE, 'PropertiesChanged',
            MANAGER_PATH, MANAGER, Gio.DBusSignalFlags.NONE, (connection, sender, path, iface, member, parameters) =>
                this._managerChanged(parameters));
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
            this._read(0, generation);
        }, error => {
            // Over progressd's caps: what Changes reads is shown, without later changes.
            console.warn(`progressd: Subscribe was refused: ${error.message}`);
            this._early = [];
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
            const [serial, reset, tasks, removed] = reply.recursiveUnpack();
            this._serial = serial;
            this._onChanges('changes', reset, tasks, removed);
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
        this._connection.call(this._owner, MANAGER_PATH, PROPERTIES_INTERFACE, 'Get',
            new GLib.Variant('(ss)', [MANAGER, 'Serial']), null, Gio.DBusCallFlags.NO_AUTO_START, -1, null,
            (connection, result) => {
                let serial;
                try {
                    serial = connection.call_finish(result).recursiveUnpack()[0];
                } catch (error) {
                    if (generation === this._generation)
                        this._pagingFailed(error);
                    return;
                }
                if (generation === this._generation)
                    this._readPage(serial, '', {}, generation);
            });
    }

    _readPage(serial, after, tasks, generation) {
        this._call('SnapshotPage', new GLib.Variant('(ssu)', [this._locale, after, 0]), generation, reply => {
            const [page, next] = reply.recursiveUnpack();
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

    // Ten a second while tasks move: only the two values the ring takes are unpacked.
    _managerChanged(parameters) {
        const overall = parameters.get_child_value(1).lookup_value('Overall', null);
        if (!overall)
            return;
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
        if (this._overallSignal)
            this._connection.signal_unsubscribe(this._overallSignal);
        this._signal = 0;
        this._overallSignal = 0;
        this._owner = null;
        this._serial = null;
        this._polling = false;
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
}
