/* Reports a job's progress to progressd through GDBus: a task of five files, one update a
 * file, then finished; then reads back what a panel would show.
 *
 *     cc -o report-progress report-progress.c $(pkg-config --cflags --libs gio-2.0)
 */
#include <gio/gio.h>
#include <stdio.h>

#define SERVICE "org.progressd.Progress1"
#define MANAGER "/org/progressd/Progress1"

/* One call to the manager; the reply, or NULL with the error printed. */
static GVariant *manager(GDBusConnection *bus, const char *method, GVariant *parameters) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(bus, SERVICE, MANAGER, SERVICE ".Manager", method, parameters,
                                                  NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
    if (reply == NULL) {
        fprintf(stderr, "%s: %s\n", method, error->message);
        g_error_free(error);
    }
    return reply;
}

/* A string property of the task, newly allocated, or NULL. */
static char *task_property(GDBusConnection *bus, const char *path, const char *name) {
    GVariant *reply = g_dbus_connection_call_sync(bus, SERVICE, path, "org.freedesktop.DBus.Properties", "Get",
                                                  g_variant_new("(ss)", SERVICE ".Task", name), G_VARIANT_TYPE("(v)"),
                                                  G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
    if (reply == NULL)
        return NULL;
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    char *text = g_variant_dup_string(value, NULL);
    g_variant_unref(value);
    g_variant_unref(reply);
    return text;
}

int main(void) {
    const char *files[] = {"beach.jpg", "cat.jpg", "dog.jpg", "forest.jpg", "snow.jpg"};
    const guint64 count = G_N_ELEMENTS(files);
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (bus == NULL) {
        fprintf(stderr, "no session bus: %s\n", error->message);
        return 1;
    }

    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add(&options, "{sv}", "title", g_variant_new_string("Copying photos"));
    g_variant_builder_add(&options, "{sv}", "total", g_variant_new_uint64(count));
    g_variant_builder_add(&options, "{sv}", "unit", g_variant_new_string("files"));
    /* "caller": the task fails at once if this program dies before it finishes. */
    g_variant_builder_add(&options, "{sv}", "lifetime", g_variant_new_string("caller"));
    GVariant *started = manager(bus, "Start", g_variant_new("(sa{sv})", "photos", &options));
    if (started == NULL)
        return 1;
    char *path = NULL;
    g_variant_get(started, "(o)", &path);
    g_variant_unref(started);

    for (guint64 done = 1; done <= count; done++) {
        /* The real work on the file goes here. */
        GVariantBuilder changes;
        g_variant_builder_init(&changes, G_VARIANT_TYPE_VARDICT);
        g_variant_builder_add(&changes, "{sv}", "completed", g_variant_new_uint64(done));
        g_variant_builder_add(&changes, "{sv}", "message", g_variant_new_string(files[done - 1]));
        GVariant *reply = manager(bus, "Update", g_variant_new("(sa{sv})", "photos", &changes));
        if (reply == NULL)
            return 1;
        g_variant_unref(reply);
    }
    GVariant *finished = manager(bus, "Finish", g_variant_new("(s)", "photos"));
    if (finished == NULL)
        return 1;
    g_variant_unref(finished);

    char *state = task_property(bus, path, "State");
    char *detail = task_property(bus, path, "Detail");
    printf("photos: %s, %s\n", state ? state : "?", detail ? detail : "?");
    g_free(state);
    g_free(detail);
    g_free(path);
    g_object_unref(bus);
    return 0;
}
