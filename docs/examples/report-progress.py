#!/usr/bin/python3
# Reports a job's progress to progressd through PyGObject's Gio (python3-gi): a task of
# five files, one update a file, then finished; then reads back what a panel would show.
from gi.repository import Gio, GLib

SERVICE = "org.progressd.Progress1"
MANAGER = "/org/progressd/Progress1"
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)


def manager(method, signature, *arguments):
    return bus.call_sync(SERVICE, MANAGER, SERVICE + ".Manager", method, GLib.Variant(signature, arguments),
                         None, Gio.DBusCallFlags.NONE, -1, None)


def task_property(path, name):
    reply = bus.call_sync(SERVICE, path, "org.freedesktop.DBus.Properties", "Get",
                          GLib.Variant("(ss)", (SERVICE + ".Task", name)), GLib.VariantType("(v)"),
                          Gio.DBusCallFlags.NONE, -1, None)
    return reply.unpack()[0]


files = ["beach.jpg", "cat.jpg", "dog.jpg", "forest.jpg", "snow.jpg"]
# "caller": the task fails at once if this program dies before it finishes.
path = manager("Start", "(sa{sv})", "photos", {
    "title": GLib.Variant("s", "Copying photos"),
    "total": GLib.Variant("t", len(files)),
    "unit": GLib.Variant("s", "files"),
    "lifetime": GLib.Variant("s", "caller"),
}).unpack()[0]
for done, name in enumerate(files, start=1):
    # The real work on the file goes here.
    manager("Update", "(sa{sv})", "photos", {"completed": GLib.Variant("t", done), "message": GLib.Variant("s", name)})
manager("Finish", "(s)", "photos")
print("photos: %s, %s" % (task_property(path, "State"), task_property(path, "Detail")))
