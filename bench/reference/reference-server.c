/* The benchmark's reference: the least a GDBus server can do for the same calls as
 * progressd's manager. SetFraction(s,d) stores into a hash table (and, with --signals,
 * emits one PropertiesChanged per call); Start(s,a{sv}) adds an entry; Snapshot(s)
 * returns every entry's fraction. Same bus, same load client, same interface names.
 * Usage: reference-server [--signals] (bus name org.progressd.Reference). */
#include <gio/gio.h>
#include <string.h>

static GHashTable *tasks;
static gboolean emit_signals;
static GDBusConnection *bus;

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
        gdouble *slot = g_hash_table_lookup(tasks, name);
        if (slot == NULL) {
            slot = g_new(gdouble, 1);
            g_hash_table_insert(tasks, g_strdup(name), slot);
        }
        *slot = fraction;
        g_dbus_method_invocation_return_value(invocation, NULL);
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
        if (g_hash_table_lookup(tasks, name) == NULL) g_hash_table_insert(tasks, g_strdup(name), g_new0(gdouble, 1));
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", "/org/progressd/Progress1/tasks/reference"));
    } else {
        GVariantBuilder all;
        g_variant_builder_init(&all, G_VARIANT_TYPE("a{sa{sv}}"));
        GHashTableIter iter;
        gpointer key, value;
        g_hash_table_iter_init(&iter, tasks);
        while (g_hash_table_iter_next(&iter, &key, &value)) {
            GVariantBuilder one;
            g_variant_builder_init(&one, G_VARIANT_TYPE_VARDICT);
            g_variant_builder_add(&one, "{sv}", "Fraction", g_variant_new_double(*(gdouble *) value));
            g_variant_builder_add(&all, "{sa{sv}}", (const gchar *) key, &one);
        }
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(a{sa{sv}})", &all));
    }
}

static const GDBusInterfaceVTable vtable = {method_call, NULL, NULL, {0}};

int main(int argc, char **argv) {
    emit_signals = argc > 1 && strcmp(argv[1], "--signals") == 0;
    tasks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    GError *error = NULL;
    bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (bus == NULL) { g_printerr("reference: %s\n", error->message); return 1; }
    GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(xml, NULL);
    g_dbus_connection_register_object(bus, "/org/progressd/Progress1", node->interfaces[0], &vtable, NULL, NULL, NULL);
    g_bus_own_name_on_connection(bus, "org.progressd.Reference", G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
    return 0;
}
