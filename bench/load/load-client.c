/* The benchmark's load client, on libdbus (independent of GDBus, and cheaper per call,
 * so the client is not what limits the rate). One mode per run; prints one line of
 * "key=value" results. Calls go to object /org/progressd/Progress1, interface
 * org.progressd.Progress1.Manager, of DEST.
 *   call DEST COUNT            SetFraction one at a time
 *   pipeline DEST COUNT DEPTH  SetFraction with DEPTH calls in flight
 *   noreply DEST COUNT         SetFraction without replies, then one Ping to wait for them
 *   batch DEST COUNT SIZE      UpdateMany with SIZE entries per call (COUNT updates in all)
 *   flood DEST RATE SECONDS TASKS [STEP FROM]   RATE updates a second over TASKS tasks, no
 *                              replies; each task sweeps 0 to 1 a second and ends at 1.0, or
 *                              with STEP moves forward STEP an update from FROM (+ k % 10 / 100)
 *   start DEST COUNT [STALL]   Start COUNT tasks (t0, t1, ...), 64 in flight; with STALL,
 *                              each with that stall-seconds
 *   snapshot DEST TIMES        Snapshot(""), TIMES times; prints each call's milliseconds (more than
 *                              1,224 tasks: only with progressd's --max-reply-values raised)
 *   listen SECONDS             counts PropertiesChanged per task object and the last Fraction
 *   owner NAME                 waits until NAME has an owner; prints CLOCK_MONOTONIC then
 *   pages DEST SIZE            every task through SnapshotPage("", after, SIZE); each page's ms
 *   list DEST TIMES            List, TIMES times; each call's ms
 *   churn DEST COUNT           COUNT short-lived connections, as progressctl makes: each
 *                              connects, starts the `caller` task "churn" (linger 0), leaves
 *   pollers DEST CONNECTIONS SECONDS   CONNECTIONS connections of this one process, each
 *                              polling Changes(serial) as fast as it is answered
 *   reader DEST SECONDS        reads every task back to back for SECONDS: a SnapshotPage walk
 *                              (1,000 a page), Snapshot, GetManagedObjects, List and Changes(0),
 *                              LimitExceeded taken as an answer; each refused Snapshot's ms
 *   probe DEST SECONDS KIND [MS]   a call every MS (10) ms for SECONDS (a late one is followed at
 *                              the next time on that schedule), each call's ms, as it goes: KIND
 *                              get is Get(TaskCount), changes is Changes(serial) from the manager's
 *                              Serial, list is List (every name)
 *   read DEST KIND TIMES       one large read TIMES times, each call's ms: KIND snapshot,
 *                              objects (GetManagedObjects), list, or pages (a SnapshotPage walk,
 *                              1,000 a page, timed whole) */
#include <dbus/dbus.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH "/org/progressd/Progress1"
#define MANAGER "org.progressd.Progress1.Manager"

static DBusConnection *bus;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what, DBusError *error) {
    fprintf(stderr, "load-client: %s: %s\n", what, error && dbus_error_is_set(error) ? error->message : "failed");
    exit(1);
}

static DBusMessage *set_fraction(const char *dest, const char *name, double fraction) {
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "SetFraction");
    dbus_message_append_args(message, DBUS_TYPE_STRING, &name, DBUS_TYPE_DOUBLE, &fraction, DBUS_TYPE_INVALID);
    return message;
}

static void check_reply(DBusMessage *reply) {
    if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
        fprintf(stderr, "load-client: error reply %s\n", dbus_message_get_error_name(reply));
        exit(1);
    }
}

/* One {sv} entry of an a{sv}: KEY, and VALUE (a pointer to it) as a variant of TYPE. */
static void append_entry(DBusMessageIter *dict, const char *key, int type, const void *value) {
    DBusMessageIter entry, variant;
    const char signature[2] = {(char) type, 0};
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    dbus_message_iter_append_basic(&variant, type, value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dict, &entry);
}

static void call_and_wait(DBusMessage *message) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, message, 60000, &error);
    if (reply == NULL) fail("call", &error);
    check_reply(reply);
    dbus_message_unref(reply);
    dbus_message_unref(message);
}

/* Changes(since, {properties}) and its reply's serial; the reply's round trip in *ms. */
static dbus_uint64_t changes(const char *dest, dbus_uint64_t since, const char **properties, int count, double *ms) {
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Changes");
    DBusMessageIter args, dict, entry, variant, array;
    dbus_message_iter_init_append(message, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT64, &since);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
    if (count > 0) {
        const char *key = "properties";
        dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
        dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "as", &variant);
        dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "s", &array);
        for (int i = 0; i < count; i++) dbus_message_iter_append_basic(&array, DBUS_TYPE_STRING, &properties[i]);
        dbus_message_iter_close_container(&variant, &array);
        dbus_message_iter_close_container(&entry, &variant);
        dbus_message_iter_close_container(&dict, &entry);
    }
    dbus_message_iter_close_container(&args, &dict);
    DBusError error;
    dbus_error_init(&error);
    double before = now();
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, message, 60000, &error);
    *ms = (now() - before) * 1000;
    if (reply == NULL) fail("Changes", &error);
    check_reply(reply);
    dbus_uint64_t serial = 0;
    DBusMessageIter out;
    dbus_message_iter_init(reply, &out);
    dbus_message_iter_get_basic(&out, &serial);
    dbus_message_unref(reply);
    dbus_message_unref(message);
    return serial;
}

/* The manager's Serial: where a poller of many tasks starts (what Changes(0) would answer
 * with is more values than one reply may carry). */
static dbus_uint64_t manager_serial(const char *dest) {
    const char *interface = MANAGER, *property = "Serial";
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, "org.freedesktop.DBus.Properties", "Get");
    dbus_message_append_args(message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &property, DBUS_TYPE_INVALID);
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, message, 60000, &error);
    if (reply == NULL) fail("Get Serial", &error);
    DBusMessageIter args, variant;
    dbus_uint64_t serial = 0;
    dbus_message_iter_init(reply, &args);
    dbus_message_iter_recurse(&args, &variant);
    dbus_message_iter_get_basic(&variant, &serial);
    dbus_message_unref(reply);
    dbus_message_unref(message);
    return serial;
}

/* The last of a run of calls without reply, sent with one and waited for: the server's main
 * loop answers it after the calls before it, so the run has been handled when it returns
 * (a Peer.Ping would not do: GDBus answers it on its own thread, ahead of the calls queued
 * for the main loop, and the run's CPU would be read while the server still works). */
static void settle(DBusMessage *last) {
    dbus_connection_flush(bus);
    call_and_wait(last);
}

static void ping(const char *dest) {
    call_and_wait(dbus_message_new_method_call(dest, PATH, "org.freedesktop.DBus.Peer", "Ping"));
}

/* Keeps DEPTH calls in flight until COUNT replies came back. */
static void pipelined(const char *dest, long count, int depth, DBusMessage *(*make)(const char *, long)) {
    long sent = 0, received = 0;
    while (received < count) {
        while (sent < count && sent - received < depth) {
            DBusMessage *message = make(dest, sent++);
            dbus_connection_send(bus, message, NULL);
            dbus_message_unref(message);
        }
        dbus_connection_flush(bus);
        dbus_connection_read_write(bus, -1);
        DBusMessage *reply;
        while ((reply = dbus_connection_pop_message(bus)) != NULL) {
            int type = dbus_message_get_type(reply);
            if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) {
                check_reply(reply);
                received++;
            }
            dbus_message_unref(reply);
        }
    }
}

static DBusMessage *next_fraction(const char *dest, long i) { return set_fraction(dest, "t0", (i % 1000) / 1000.0); }

/* The stall-seconds of started tasks; 0 leaves the daemon's default. */
static dbus_uint32_t start_stall_seconds;

static DBusMessage *next_start(const char *dest, long i) {
    char name[32];
    snprintf(name, sizeof name, "t%ld", i);
    const char *p = name;
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Start");
    DBusMessageIter args, dict;
    dbus_message_iter_init_append(message, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &p);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
    if (start_stall_seconds) append_entry(&dict, "stall-seconds", DBUS_TYPE_UINT32, &start_stall_seconds);
    dbus_message_iter_close_container(&args, &dict);
    return message;
}

static long batch_size;
static DBusMessage *next_batch(const char *dest, long i) {
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "UpdateMany");
    DBusMessageIter args, array, entry, dict;
    dbus_message_iter_init_append(message, &args);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "(sa{sv})", &array);
    for (long j = 0; j < batch_size; j++) {
        const char *name = "t0";
        double fraction = ((i * batch_size + j) % 1000) / 1000.0;
        dbus_message_iter_open_container(&array, DBUS_TYPE_STRUCT, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &name);
        dbus_message_iter_open_container(&entry, DBUS_TYPE_ARRAY, "{sv}", &dict);
        append_entry(&dict, "fraction", DBUS_TYPE_DOUBLE, &fraction);
        dbus_message_iter_close_container(&entry, &dict);
        dbus_message_iter_close_container(&array, &entry);
    }
    dbus_message_iter_close_container(&args, &array);
    return message;
}

static void listen_for(double seconds) {
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(bus, "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                            "path_namespace='/org/progressd/Progress1/tasks'", &error);
    if (dbus_error_is_set(&error)) fail("match", &error);
    printf("ready\n");
    fflush(stdout);
    enum { MAX = 4096 };
    static char paths[MAX][128];
    static long counts[MAX];
    static double last[MAX];
    int known = 0;
    double end = now() + seconds;
    while (now() < end) {
        dbus_connection_read_write(bus, 50);
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(bus)) != NULL) {
            if (dbus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged")) {
                const char *path = dbus_message_get_path(message);
                int slot = 0;
                while (slot < known && strcmp(paths[slot], path) != 0) slot++;
                if (slot == known && known < MAX) {
                    snprintf(paths[known], sizeof paths[known], "%s", path);
                    last[known] = NAN;
                    known++;
                }
                counts[slot]++;
                DBusMessageIter args, dict, entry, value;
                dbus_message_iter_init(message, &args);
                dbus_message_iter_next(&args);
                dbus_message_iter_recurse(&args, &dict);
                while (dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY) {
                    const char *key;
                    dbus_message_iter_recurse(&dict, &entry);
                    dbus_message_iter_get_basic(&entry, &key);
                    dbus_message_iter_next(&entry);
                    dbus_message_iter_recurse(&entry, &value);
                    if (strcmp(key, "Fraction") == 0) dbus_message_iter_get_basic(&value, &last[slot]);
                    dbus_message_iter_next(&dict);
                }
            }
            dbus_message_unref(message);
        }
    }
    long total = 0, max = 0, finals = 0;
    for (int i = 0; i < known; i++) {
        total += counts[i];
        if (counts[i] > max) max = counts[i];
        if (last[i] == 1.0) finals++;
    }
    printf("objects=%d signals=%ld max_per_object=%ld last_value_delivered=%ld\n", known, total, max, finals);
}

/* SnapshotPage(locale, after, size): the reply's next name, copied into next. */
static void snapshot_page(const char *dest, const char *after, unsigned size, char *next, size_t room) {
    const char *locale = "";
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "SnapshotPage");
    dbus_message_append_args(message, DBUS_TYPE_STRING, &locale, DBUS_TYPE_STRING, &after, DBUS_TYPE_UINT32, &size,
                             DBUS_TYPE_INVALID);
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, message, 60000, &error);
    if (reply == NULL) fail("SnapshotPage", &error);
    check_reply(reply);
    DBusMessageIter args;
    dbus_message_iter_init(reply, &args);
    dbus_message_iter_next(&args);
    const char *following;
    dbus_message_iter_get_basic(&args, &following);
    snprintf(next, room, "%s", following);
    dbus_message_unref(reply);
    dbus_message_unref(message);
}

static const char *poll_dest;
static volatile int polling = 1;

/* One poller: its own connection, Changes from the last serial, again as soon as answered. */
static void *poll_changes(void *unused) {
    (void) unused;
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *own = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (own == NULL) fail("connect", &error);
    DBusConnection *shared = bus;
    dbus_uint64_t serial = 0;
    const char *name_only[] = {"Name"};
    long polls = 0;
    while (polling) {
        DBusMessage *message = dbus_message_new_method_call(poll_dest, PATH, MANAGER, "Changes");
        DBusMessageIter args, dict;
        dbus_message_iter_init_append(message, &args);
        dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT64, &serial);
        dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
        if (serial == 0) {
            /* The first poll only for its serial, as progressctl watch does. */
            DBusMessageIter entry, variant, array;
            const char *key = "properties";
            dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
            dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
            dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "as", &variant);
            dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "s", &array);
            dbus_message_iter_append_basic(&array, DBUS_TYPE_STRING, &name_only[0]);
            dbus_message_iter_close_container(&variant, &array);
            dbus_message_iter_close_container(&entry, &variant);
            dbus_message_iter_close_container(&dict, &entry);
        }
        dbus_message_iter_close_container(&args, &dict);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(own, message, 60000, &error);
        if (reply == NULL) fail("Changes", &error);
        check_reply(reply);
        DBusMessageIter out;
        dbus_message_iter_init(reply, &out);
        dbus_message_iter_get_basic(&out, &serial);
        dbus_message_unref(reply);
        dbus_message_unref(message);
        polls++;
    }
    (void) shared;
    dbus_connection_close(own);
    dbus_connection_unref(own);
    return (void *) polls;
}

/* A call whose reply may be an error named REFUSED (which counts as an answer); its ms. */
static double call_allowing(DBusMessage *message, const char *refused, int *was_refused) {
    DBusError error;
    dbus_error_init(&error);
    double before = now();
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, message, 60000, &error);
    double ms = (now() - before) * 1000;
    *was_refused = 0;
    if (reply == NULL) {
        if (!dbus_error_has_name(&error, refused)) fail("call", &error);
        *was_refused = 1;
        dbus_error_free(&error);
    } else {
        check_reply(reply);
        dbus_message_unref(reply);
    }
    dbus_message_unref(message);
    return ms;
}

#define LIMIT_EXCEEDED "org.progressd.Progress1.Error.LimitExceeded"

/* One Changes(0) with every property (a{sv} without "properties"). */
static DBusMessage *changes_from_zero(const char *dest) {
    DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Changes");
    DBusMessageIter args, dict;
    dbus_uint64_t zero = 0;
    dbus_message_iter_init_append(message, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT64, &zero);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
    dbus_message_iter_close_container(&args, &dict);
    return message;
}

/* reader: every way of reading all the tasks, back to back, until SECONDS have passed. */
static void read_back_to_back(const char *dest, double seconds) {
    double end = now() + seconds;
    long rounds = 0;
    int refused;
    printf("refused_snapshot_ms=");
    int printed = 0;
    while (now() < end) {
        char after[4096] = "";
        do snapshot_page(dest, after, 1000, after, sizeof after); while (after[0] != 0 && now() < end);
        const char *locale = "";
        DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Snapshot");
        dbus_message_append_args(message, DBUS_TYPE_STRING, &locale, DBUS_TYPE_INVALID);
        double ms = call_allowing(message, LIMIT_EXCEEDED, &refused);
        if (refused) printf("%s%.3f", printed++ ? " " : "", ms);
        call_allowing(dbus_message_new_method_call(dest, PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"),
                      LIMIT_EXCEEDED, &refused);
        call_allowing(dbus_message_new_method_call(dest, PATH, MANAGER, "List"), LIMIT_EXCEEDED, &refused);
        call_allowing(changes_from_zero(dest), LIMIT_EXCEEDED, &refused);
        rounds++;
    }
    printf("\nrounds=%ld\n", rounds);
}

/* probe: one call every `interval` ms; each call's round trip. */
static void probe(const char *dest, double seconds, const char *kind, long interval) {
    int changes_kind = strcmp(kind, "changes") == 0;
    int list_kind = strcmp(kind, "list") == 0;
    dbus_uint64_t serial = 0;
    double ms;
    if (changes_kind) serial = manager_serial(dest);
    double start = now(), end = start + seconds;
    printf("probe_ms=");
    for (long i = 0; now() < end; i++) {
        if (changes_kind) {
            serial = changes(dest, serial, NULL, 0, &ms);
        } else if (list_kind) {
            int refused;
            ms = call_allowing(dbus_message_new_method_call(dest, PATH, MANAGER, "List"), "", &refused);
        } else {
            const char *interface = MANAGER, *property = "TaskCount";
            DBusMessage *message = dbus_message_new_method_call(dest, PATH, "org.freedesktop.DBus.Properties", "Get");
            dbus_message_append_args(message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &property, DBUS_TYPE_INVALID);
            int refused;
            ms = call_allowing(message, "", &refused);
        }
        printf("%s%.3f", i ? " " : "", ms);
        fflush(stdout);
        /* On a schedule of `interval`: the next call at the next time on it that has not
         * passed (a late call is not followed by a burst of the ones it missed). */
        double period = interval / 1000.0, since = now() - start;
        double left = period * (floor(since / period) + 1) - since;
        struct timespec pause = {(time_t) left, (long) ((left - (time_t) left) * 1e9)};
        nanosleep(&pause, NULL);
    }
    printf("\n");
}

/* read: one large read, TIMES times; each call's ms. */
static void read_large(const char *dest, const char *kind, long times) {
    printf("read_ms=");
    for (long i = 0; i < times; i++) {
        double before = now();
        int refused;
        if (strcmp(kind, "pages") == 0) {
            char after[4096] = "";
            do snapshot_page(dest, after, 1000, after, sizeof after); while (after[0] != 0);
        } else if (strcmp(kind, "list") == 0) {
            call_allowing(dbus_message_new_method_call(dest, PATH, MANAGER, "List"), "", &refused);
        } else if (strcmp(kind, "objects") == 0) {
            const char *objects = "org.freedesktop.DBus.ObjectManager";
            call_allowing(dbus_message_new_method_call(dest, PATH, objects, "GetManagedObjects"), "", &refused);
        } else {
            const char *locale = "";
            DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Snapshot");
            dbus_message_append_args(message, DBUS_TYPE_STRING, &locale, DBUS_TYPE_INVALID);
            call_allowing(message, "", &refused);
        }
        printf("%s%.3f", i ? " " : "", (now() - before) * 1000);
        fflush(stdout);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: see the comment at the top of load-client.c\n"); return 64; }
    DBusError error;
    dbus_error_init(&error);
    bus = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (bus == NULL) fail("connect", &error);
    const char *mode = argv[1];
    if (strcmp(mode, "listen") == 0) { listen_for(atof(argv[2])); return 0; }
    if (strcmp(mode, "owner") == 0) {
        while (!dbus_bus_name_has_owner(bus, argv[2], NULL)) {
            struct timespec pause = {0, 200000};
            nanosleep(&pause, NULL);
        }
        printf("owned_at=%.6f\n", now());
        return 0;
    }
    const char *dest = argv[2];
    long count = argc > 3 ? atol(argv[3]) : 0;
    double start = now();
    if (strcmp(mode, "call") == 0) {
        for (long i = 0; i < count; i++) call_and_wait(set_fraction(dest, "t0", (i % 1000) / 1000.0));
    } else if (strcmp(mode, "pipeline") == 0) {
        pipelined(dest, count, atoi(argv[4]), next_fraction);
    } else if (strcmp(mode, "noreply") == 0) {
        for (long i = 0; i < count - 1; i++) {
            DBusMessage *message = set_fraction(dest, "t0", (i % 1000) / 1000.0);
            dbus_message_set_no_reply(message, TRUE);
            dbus_connection_send(bus, message, NULL);
            dbus_message_unref(message);
            if (i % 256 == 0) dbus_connection_flush(bus);
        }
        settle(set_fraction(dest, "t0", ((count - 1) % 1000) / 1000.0));
    } else if (strcmp(mode, "batch") == 0) {
        batch_size = atol(argv[4]);
        pipelined(dest, count / batch_size, 8, next_batch);
    } else if (strcmp(mode, "start") == 0) {
        if (argc > 4) start_stall_seconds = (dbus_uint32_t) atol(argv[4]);
        pipelined(dest, count, 64, next_start);
    } else if (strcmp(mode, "flood") == 0) {
        double rate = atof(argv[3]), seconds = atof(argv[4]);
        int objects = atoi(argv[5]);
        long total = (long) (rate * seconds);
        /* With STEP, each task moves forward as a transfer does instead of sweeping 0 to 1
         * each second: task k's n-th update sets FROM + k % 10 / 100 + n * STEP. */
        double step = argc > 6 ? atof(argv[6]) : 0, from = argc > 7 ? atof(argv[7]) : 0;
        for (long i = 0; i < total - 1; i++) {
            while (now() < start + i / rate) {
                struct timespec pause = {0, 100000};
                nanosleep(&pause, NULL);
            }
            char name[32];
            snprintf(name, sizeof name, "t%ld", i % objects);
            double fraction = step > 0 ? fmin(0.99, from + (i % objects % 10) / 100.0 + (double) (i / objects) * step)
                              : i >= total - objects ? 1.0 : (i % 997) / 1000.0;
            DBusMessage *message = set_fraction(dest, name, fraction);
            dbus_message_set_no_reply(message, TRUE);
            dbus_connection_send(bus, message, NULL);
            dbus_message_unref(message);
            if (i % 64 == 0) dbus_connection_flush(bus);
        }
        char last[32];
        snprintf(last, sizeof last, "t%ld", (total - 1) % objects);
        settle(set_fraction(dest, last, step > 0 ? fmin(0.99, from + ((total - 1) % objects % 10) / 100.0
                                                             + (double) ((total - 1) / objects) * step) : 1.0));
        count = total;
    } else if (strcmp(mode, "changes") == 0) {
        /* changes DEST POLLS CHANGED: before each poll, CHANGED tasks (t0...) move; the poll's round trips. */
        int changed = atoi(argv[4]);
        double ms;
        dbus_uint64_t serial = manager_serial(dest);
        printf("changes_ms=");
        for (long i = 0; i < count; i++) {
            for (int k = 0; k < changed; k++) {
                char name[32];
                snprintf(name, sizeof name, "t%d", k);
                DBusMessage *message = set_fraction(dest, name, ((i + k) % 1000) / 1000.0);
                dbus_message_set_no_reply(message, TRUE);
                dbus_connection_send(bus, message, NULL);
                dbus_message_unref(message);
            }
            ping(dest);
            serial = changes(dest, serial, NULL, 0, &ms);
            printf("%s%.4f", i ? " " : "", ms);
        }
        printf("\n");
        return 0;
    } else if (strcmp(mode, "selective") == 0) {
        /* selective DEST COUNT: Changes(0) with four properties, the selective snapshot. */
        const char *properties[] = {"Name", "State", "Fraction", "Title"};
        printf("selective_ms=");
        for (long i = 0; i < count; i++) {
            double ms;
            changes(dest, 0, properties, 4, &ms);
            printf("%s%.3f", i ? " " : "", ms);
        }
        printf("\n");
        return 0;
    } else if (strcmp(mode, "pages") == 0) {
        /* pages DEST SIZE: the whole table, page by page, from the first name. */
        char after[4096] = "";
        long pages = 0;
        printf("page_ms=");
        do {
            double before = now();
            snapshot_page(dest, after, (unsigned) count, after, sizeof after);
            printf("%s%.3f", pages ? " " : "", (now() - before) * 1000);
            pages++;
        } while (after[0] != 0);
        printf("\n");
        return 0;
    } else if (strcmp(mode, "list") == 0) {
        printf("list_ms=");
        for (long i = 0; i < count; i++) {
            DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "List");
            double before = now();
            call_and_wait(message);
            printf("%s%.3f", i ? " " : "", (now() - before) * 1000);
        }
        printf("\n");
        return 0;
    } else if (strcmp(mode, "churn") == 0) {
        for (long i = 0; i < count; i++) {
            DBusError error;
            dbus_error_init(&error);
            DBusConnection *own = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
            if (own == NULL) fail("connect", &error);
            DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Start");
            DBusMessageIter args, dict;
            const char *name = "churn", *lifetime = "caller";
            dbus_uint32_t linger = 0;
            dbus_message_iter_init_append(message, &args);
            dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &name);
            dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
            append_entry(&dict, "lifetime", DBUS_TYPE_STRING, &lifetime);
            append_entry(&dict, "linger-seconds", DBUS_TYPE_UINT32, &linger);
            dbus_message_iter_close_container(&args, &dict);
            DBusMessage *reply = dbus_connection_send_with_reply_and_block(own, message, 60000, &error);
            if (reply == NULL) fail("Start", &error);
            check_reply(reply);
            dbus_message_unref(reply);
            dbus_message_unref(message);
            dbus_connection_close(own);
            dbus_connection_unref(own);
        }
    } else if (strcmp(mode, "pollers") == 0) {
        dbus_threads_init_default();
        poll_dest = dest;
        double seconds = atof(argv[4]);
        pthread_t threads[256];
        if (count > 256) count = 256;
        for (long i = 0; i < count; i++) pthread_create(&threads[i], NULL, poll_changes, NULL);
        struct timespec pause = {(time_t) seconds, (long) ((seconds - (time_t) seconds) * 1e9)};
        nanosleep(&pause, NULL);
        polling = 0;
        long polls = 0;
        for (long i = 0; i < count; i++) {
            void *result;
            pthread_join(threads[i], &result);
            polls += (long) result;
        }
        printf("polls=%ld\n", polls);
        return 0;
    } else if (strcmp(mode, "reader") == 0) {
        read_back_to_back(dest, atof(argv[3]));
        return 0;
    } else if (strcmp(mode, "probe") == 0) {
        probe(dest, atof(argv[3]), argv[4], argc > 5 ? atol(argv[5]) : 10);
        return 0;
    } else if (strcmp(mode, "read") == 0) {
        read_large(dest, argv[3], atol(argv[4]));
        return 0;
    } else if (strcmp(mode, "snapshot") == 0) {
        for (long i = 0; i < count; i++) {
            const char *locale = "";
            DBusMessage *message = dbus_message_new_method_call(dest, PATH, MANAGER, "Snapshot");
            dbus_message_append_args(message, DBUS_TYPE_STRING, &locale, DBUS_TYPE_INVALID);
            double before = now();
            call_and_wait(message);
            printf("%s%.3f", i ? " " : "snapshot_ms=", (now() - before) * 1000);
        }
        printf("\n");
        return 0;
    } else {
        fprintf(stderr, "load-client: unknown mode %s\n", mode);
        return 64;
    }
    double elapsed = now() - start;
    printf("calls=%ld seconds=%.6f rate=%.1f\n", count, elapsed, count / elapsed);
    return 0;
}
