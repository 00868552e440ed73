#!/usr/bin/python3
"""Takes com.canonical.Unity as Dash to Dock does (ALLOW_REPLACEMENT | REPLACE_EXISTING).
Prints "owned <unique name>" or "not-owned", then holds the name until stdin closes."""
import sys

from gi.repository import Gio

address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
bus = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
# RequestName flags: 1 ALLOW_REPLACEMENT, 2 REPLACE_EXISTING, 4 DO_NOT_QUEUE.
reply = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                      __import__("gi").repository.GLib.Variant("(su)", ("com.canonical.Unity", 1 | 2 | 4)),
                      None, Gio.DBusCallFlags.NONE, -1, None)
print("owned" if reply.unpack()[0] == 1 else "not-owned", bus.get_unique_name(), flush=True)
sys.stdin.read()
