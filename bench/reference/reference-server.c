/* The benchmark's reference: the least a GDBus server can do for the same calls as
 * progressd's manager. SetFraction(s,d) stores into a hash table (and, with --signals,
 * emits one PropertiesChanged per call); Start(s,a{sv}) adds an entry (and, with --fsync
 * FILE, appends a line to FILE and syncs it before the reply: one fsync per Start);
 * Snapshot(s) returns every entry's 26 properties as progressd's Task has them, prepared
 * once as a serialized a{sv} (at the first Snapshot, so that Start stays the least a
 * server can do): the same a{sa{sv}} progressd returns. Same bus, same load client,
 * same interface names.
 * With --empty-replies, SetFraction is answered as progressd answers it (a reply with no
 * body, built without GDBus's typed return), to show what of a difference is that reply.
 * Usage: reference-server [--signals] [--empty-replies] [--fsync FILE] (bus name org.progressd.Reference). */
#include <gio/gio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static GHashTable *tasks;
static gboolean emit_signals;
static gboolean empty_replies;
static int journal = -1;
static GDBusConnection *bus;

/* One task: its fraction and its properties, built once when it starts. */
typedef struct {
    gdouble fraction;
    GVariant *properties;
} Task;

static void task_free(gpointer data) {
    Task *task = data;
    if (task->properties) g_variant_unref(task->properties);
    g_free(task);
}

/* The properties of a new task, as progressd's Task interface has them. */
static GVariant *prepared_properties(const gchar *name) {
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    gint64 now = g_get_real_time();
    g_variant_builder_add(&b, "{sv}", "Name", g_variant_new_string(name));
    g_variant_builder_add(&b, "{sv}", "Title", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "State", g_variant_new_string("running"));
    g_variant_builder_add(&b, "{sv}", "Indeterminate", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "Fraction", g_variant_new_double(0));
    g_variant_builder_add(&b, "{sv}", "Completed", g_variant_new_uint64(0));
    g_variant_builder_add(&b, "{sv}", "Total", g_variant_new_uint64(0));
    g_variant_builder_add(&b, "{sv}", "Unit", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "Message", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "AppId", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "UpdatesFrequently", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "Serial", g_variant_new_uint64(0));
    g_variant_builder_add(&b, "{sv}", "Created", g_variant_new_int64(now));
    g_variant_builder_add(&b, "{sv}", "Updated", g_variant_new_int64(now));
    g_variant_builder_add(&b, "{sv}", "Label", g_variant_new_string("0%"));
    g_variant_builder_add(&b, "{sv}", "Detail", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "AccessibleText", g_variant_new_string("t: 0 percent"));
    g_variant_builder_add(&b, "{sv}", "Rate", g_variant_new_double(0));
    g_variant_builder_add(&b, "{sv}", "SecondsRemaining", g_variant_new_int64(-1));
    g_variant_builder_add(&b, "{sv}", "Stalled", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "Lifetime", g_variant_new_string("lease"));
    g_variant_builder_add(&b, "{sv}", "Cancellable", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "Pausable", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "CancelRequested", g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", "Parent", g_variant_new_string(""));
    g_variant_builder_add(&b, "{sv}", "Weight", g_variant_new_double(1));
    GVariant *prepared = g_variant_ref_sink(g_variant_builder_end(&b));
    /* Kept serialized, as a server that prepares its replies would keep them. */
    g_variant_get_data(prepared);
    return prepared;
}

static const gchar xml[] =
    "<node><interface name='org.progressd.Progress1.Manager'>"
    "<method name='SetFraction'><arg type='s' direction='in'/><arg type='d' direction='in'/></method>"
    "<method name='Start'><arg type='s' direction='in'/><arg type='a{sv}' direction='in'/><arg type='o' direction='out'/></method>"
    "<method name='Snapshot'><arg type='s' direction='in'/><arg type='a{sa{sv}}' direction='out'/></method>"
    "</interface></node>";

static void method_call(GDBusConnection *connection, const gchar *sender, const gchar *path, const gchar *interface,
                        const gchar *method, GVariant *parameters, GDBusMethodInvocation *invocation, gpointer data) {
    if (strcmp(method, "SetFraction") == 0) {
        const gchar *name;
        gdouble fraction;
        g_variant_get(parameters, "(&sd)", &name, &fraction);
        Task *slot = g_hash_table_lookup(tasks, name);
        if (slot == NULL) {
            slot = g_new0(Task, 1);
            g_hash_table_insert(tasks, g_strdup(name), slot);
        }
        slot->fraction = fraction;
        if (empty_replies) {
            /* As progressd answers a method that returns nothing: a reply with no body. */
            GDBusMessage *call = g_dbus_method_invocation_get_message(invocation);
            if (!(g_dbus_message_get_flags(call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)) {
                GDBusMessage *reply = g_dbus_message_new_method_reply(call);
                g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
                g_object_unref(reply);
            }
            g_object_unref(invocation);
        } else {
            g_dbus_method_invocation_return_value(invocation, NULL);
        }
        if (emit_signals) {
            GVariantBuilder changed;
            g_variant_builder_init(&changed, G_VARIANT_TYPE_VARDICT);
            g_variant_builder_add(&changed, "{sv}", "Fraction", g_variant_new_double(fraction));
            /* Bench task names (t0, t1, ...) are valid path elements as they are. */
            gchar *task_path = g_strconcat("/org/progressd/Progress1/tasks/", name, NULL);
            g_dbus_connection_emit_signal(connection, NULL, task_path,
                                          "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                          g_variant_new("(sa{sv}as)", "org.progressd.Progress1.Task", &changed, NULL), NULL);
            g_free(task_path);
        }
    } else if (strcmp(method, "Start") == 0) {
        const gchar *name;
        g_variant_get(parameters, "(&s@a{sv})", &name, NULL);
        if (g_hash_table_lookup(tasks, name) == NULL) g_hash_table_insert(tasks, g_strdup(name), g_new0(Task, 1));
        if (journal >= 0) {
            gchar *line = g_strdup_printf("{\"put\":{\"name\":\"%s\"}}\n", name);
            if (write(journal, line, strlen(line)) < 0 || fdatasync(journal) != 0) g_printerr("reference: journal write failed\n");
            g_free(line);
        }
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", "/org/progressd/Progress1/tasks/reference"));
    } else {
        GVariantBuilder all;
        g_variant_builder_init(&all, G_VARIANT_TYPE("a{sa{sv}}"));
        GHashTableIter iter;
        gpointer key, value;
        g_hash_table_iter_init(&iter, tasks);
        while (g_hash_table_iter_next(&iter, &key, &value)) {
            Task *task = value;
            if (task->properties == NULL) task->properties = prepared_properties(key);
            g_variant_builder_add(&all, "{s@a{sv}}", (const gchar *) key, task->properties);
        }
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(a{sa{sv}})", &all));
    }
}

static const GDBusInterfaceVTable vtable = {method_call, NULL, NULL, {0}};

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--signals") == 0) emit_signals = TRUE;
        if (strcmp(argv[i], "--empty-replies") == 0) empty_replies = TRUE;
        if (strcmp(argv[i], "--fsync") == 0 && i + 1 < argc) {
            journal = open(argv[++i], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
            if (journal < 0) { g_printerr("reference: can not open %s\n", argv[i]); return 1; }
        }
    }
    tasks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, task_free);
    GError *error = NULL;
    bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (bus == NULL) { g_printerr("reference: %s\n", error->message); return 1; }
    GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(xml, NULL);
    g_dbus_connection_register_object(bus, "/org/progressd/Progress1", node->interfaces[0], &vtable, NULL, NULL, NULL);
    g_bus_own_name_on_connection(bus, "org.progressd.Reference", G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
    return 0;
}
