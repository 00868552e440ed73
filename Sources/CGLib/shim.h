#ifndef PROGRESSD_CGLIB_SHIM_H
#define PROGRESSD_CGLIB_SHIM_H

#include <gio/gio.h>
#include <glib-unix.h>
#include <malloc.h>
#include <gio/gdesktopappinfo.h>

/* G_VARIANT_TYPE is a cast macro, which Swift does not import. */
static inline const GVariantType *shim_variant_type(const char *type_string) {
    return (const GVariantType *) type_string;
}

/* g_signal_connect is a macro. */
static inline gulong shim_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data) {
    return g_signal_connect_data(instance, signal, handler, data, NULL, (GConnectFlags) 0);
}

/* Sets a GError from a Swift string without the variadic g_set_error. */
static inline void shim_set_dbus_error(GError **error, GDBusError code, const char *message) {
    g_set_error_literal(error, G_DBUS_ERROR, code, message);
}

/* Blocks of at least `bytes` are mapped on their own and unmapped when freed. Setting it at
 * all turns off glibc's adjustment, which raises the threshold to the largest mapped block
 * freed (up to 32 MiB), after which large replies are built in the heap and keep it big. */
static inline int shim_malloc_map_blocks_from(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

/* The name an installed desktop file gives an application, or NULL: GDesktopAppInfo's
   lookup through XDG_DATA_DIRS, without Swift having to hold the GAppInfo. */
static inline char *shim_desktop_app_name(const char *desktop_id) {
    GDesktopAppInfo *info = g_desktop_app_info_new(desktop_id);
    if (info == NULL) return NULL;
    char *name = g_strdup(g_app_info_get_name(G_APP_INFO(info)));
    g_object_unref(info);
    return name;
}

#endif
