#!/usr/bin/python3
"""A dock-like LauncherEntry listener, subscribing as Dash to Dock does (launcherAPI.js):
any sender, any path, interface com.canonical.Unity.LauncherEntry, member Update.
Prints one JSON line per signal: sender, path, monotonic time, signature, the app URI and
each property with its GVariant type and value. Prints "ready" once subscribed; runs for the
seconds given as the first argument (the test's HelperProcess kills it sooner).
"""
import json
import sys
import time

from gi.repository import Gio, GLib

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30
address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
bus = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
loop = GLib.MainLoop()


def on_update(connection, sender, path, interface, member, parameters):
    line = {"sender": sender, "path": path, "time": time.monotonic(), "signature": parameters.get_type_string()}
    if parameters.get_type_string() == "(sa{sv})":
        line["uri"] = parameters.get_child_value(0).get_string()
        props = parameters.get_child_value(1)
        line["props"] = {}
        for index in range(props.n_children()):
            entry = props.get_child_value(index)
            key = entry.get_child_value(0).get_string()
            value = entry.get_child_value(1).get_variant()
            line["props"][key] = [value.get_type_string(), value.unpack()]
    print(json.dumps(line), flush=True)


bus.signal_subscribe(None, "com.canonical.Unity.LauncherEntry", "Update", None, None, Gio.DBusSignalFlags.NONE, on_update)
GLib.timeout_add(int(seconds * 1000), loop.quit)
# A round trip, so that the match rule is in place before "ready".
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", None, None,
              Gio.DBusCallFlags.NONE, -1, None)
print("ready", bus.get_unique_name(), flush=True)
loop.run()
