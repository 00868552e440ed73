#!/usr/bin/python3
"""A notification server written from the Desktop Notifications Specification 1.2, for the
tests of progressd's notifications: it owns org.freedesktop.Notifications and serves
GetCapabilities (argv[1], comma-separated; answered argv[2] seconds late when given), GetServerInformation, Notify (replacing a
notification in place when replaces_id names one that is open) and CloseNotification, and
prints each call as a JSON line with the notifications open after it. Commands on stdin:
`close <id>` closes a notification as a user's click would (NotificationClosed reason 2),
`action <id> <key>` invokes an action (ActionInvoked); end of input quits."""
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
NAME, PATH = "org.freedesktop.Notifications", "/org/freedesktop/Notifications"
capabilities = [c for c in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if c]
capabilities_delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


def hint(value):
    if isinstance(value, dbus.Boolean):
        return bool(value)
    return value + 0 if isinstance(value, (int, float)) else str(value)


def emit(**event):
    print(json.dumps(event), flush=True)


class Server(dbus.service.Object):
    last_id = 0
    open = set()

    @dbus.service.method(NAME, in_signature="", out_signature="as", async_callbacks=("reply", "error"))
    def GetCapabilities(self, reply, error):
        emit(event="capabilities")
        answer = dbus.Array(capabilities, signature="s")
        if capabilities_delay:
            GLib.timeout_add(int(capabilities_delay * 1000), lambda: reply(answer) and False)
        else:
            reply(answer)

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("spec-server", "progressd tests", "1.0", "1.2")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, timeout, sender=None):
        # The specification: a replaces_id that names an open notification is replaced
        # atomically and keeps its id; otherwise a new one is made.
        if replaces_id in Server.open:
            nid = int(replaces_id)
        else:
            Server.last_id += 1
            nid = Server.last_id
        Server.open.add(nid)
        emit(event="notify", id=nid, replaces_id=int(replaces_id), app_name=str(app_name), summary=str(summary),
             body=str(body), actions=[str(a) for a in actions], hints={str(k): hint(v) for k, v in hints.items()}, timeout=int(timeout), open=sorted(Server.open))
        return dbus.UInt32(nid)

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        if nid in Server.open:
            Server.open.discard(nid)
            self.NotificationClosed(nid, 3)
        emit(event="close", id=int(nid), open=sorted(Server.open))

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, nid, key):
        pass


def command(source, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    words = line.split()
    if len(words) >= 2 and words[0] == "close":
        nid = int(words[1])
        Server.open.discard(nid)
        server.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(2))
    elif len(words) == 3 and words[0] == "action":
        server.ActionInvoked(dbus.UInt32(int(words[1])), words[2])
    return True


server = Server(bus, PATH)
name = dbus.service.BusName(NAME, bus, do_not_queue=True)
loop = GLib.MainLoop()
GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, command)
emit(event="ready", owner=bus.get_unique_name())
loop.run()
