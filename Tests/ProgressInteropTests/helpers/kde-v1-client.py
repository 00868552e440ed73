#!/usr/bin/python3
"""A KDE job that speaks only the V1 protocol, as KUiServerJobTracker does: requestView on
org.kde.JobViewServer, JobViewV2's setters, and on cancelRequested setError(1) (KIO's
ERR_USER_CANCELED) and terminate(""). Prints its view path; exits 0 when cancelled, 2 if
never cancelled within 30 s."""
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
server = bus.get_object("org.kde.JobViewServer", "/JobViewServer")
path = dbus.Interface(server, "org.kde.JobViewServer").requestView("kv1job", "kv1job", 1)
view = dbus.Interface(bus.get_object("org.kde.JobViewServer", path), "org.kde.JobViewV2")
print("view %s" % path, flush=True)
view.setInfoMessage("Fetching", ignore_reply=True)
view.setDescriptionField(0, "Source", "ftp://example/file")
view.setTotalAmount(dbus.UInt64(100), "files", ignore_reply=True)
done = {"processed": 0, "status": 2}
loop = GLib.MainLoop()


def tick():
    done["processed"] = min(99, done["processed"] + 1)
    view.setProcessedAmount(dbus.UInt64(done["processed"]), "files", ignore_reply=True)
    return True


def cancelled():
    view.setError(dbus.UInt32(1), ignore_reply=True)
    view.terminate("", ignore_reply=True)
    done["status"] = 0
    GLib.timeout_add(200, loop.quit)


bus.add_signal_receiver(cancelled, "cancelRequested", "org.kde.JobViewV2", path=path)
GLib.timeout_add(100, tick)
GLib.timeout_add_seconds(30, loop.quit)
loop.run()
sys.exit(done["status"])
