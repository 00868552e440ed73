#!/usr/bin/python3
"""A JobViewServer like Plasma's, for the forwarding tests: it owns org.kde.JobViewServer
(replacing progressd, which allows it), serves JobViewServerV2.requestView and views with
JobViewV3 (update, terminate), and prints each call as a JSON line. Commands on stdin:
`cancel|suspend|resume <path>` emit that signal on the view; end of input quits.
The method signatures are checked against the XML progressd embeds (argv[1])."""
import json
import sys
import xml.etree.ElementTree as ET

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
V2, V3 = "org.kde.JobViewServerV2", "org.kde.JobViewV3"
SIGNATURES = {(V2, "requestView"): ("sia{sv}", "o"), (V3, "update"): ("a{sv}", ""), (V3, "terminate"): ("usa{sv}", "")}


def check_against_xml(path):
    root = ET.parse(path).getroot()
    for interface in root.findall("interface"):
        for method in interface.findall("method"):
            key = (interface.get("name"), method.get("name"))
            if key not in SIGNATURES:
                continue
            args = method.findall("arg")
            ins = "".join(a.get("type") for a in args if a.get("direction", "in") == "in")
            outs = "".join(a.get("type") for a in args if a.get("direction") == "out")
            if (ins, outs) != SIGNATURES[key]:
                sys.exit("%s.%s is (%s)->(%s) in the XML" % (key[0], key[1], ins, outs))


def plain(value):
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (int, float)):
        return value + 0
    return str(value)


def emit(**event):
    print(json.dumps(event), flush=True)


views = {}


class View(dbus.service.Object):
    @dbus.service.method(V3, in_signature="a{sv}", sender_keyword="sender")
    def update(self, properties, sender=None):
        emit(event="update", path=self._object_path, sender=sender, props=plain(properties))

    @dbus.service.method(V3, in_signature="usa{sv}", sender_keyword="sender")
    def terminate(self, code, message, hints, sender=None):
        emit(event="terminate", path=self._object_path, code=int(code), message=str(message))

    @dbus.service.signal(V3)
    def cancelRequested(self):
        pass

    @dbus.service.signal(V3)
    def suspendRequested(self):
        pass

    @dbus.service.signal(V3)
    def resumeRequested(self):
        pass


class Server(dbus.service.Object):
    count = 0

    @dbus.service.method(V2, in_signature="sia{sv}", out_signature="o", sender_keyword="sender")
    def requestView(self, entry, capabilities, hints, sender=None):
        Server.count += 1
        path = "/org/kde/notificationmanager/jobs/JobView_%d" % Server.count
        views[path] = View(bus, path)
        emit(event="requestView", path=path, entry=str(entry), capabilities=int(capabilities), hints=plain(hints), sender=sender)
        return dbus.ObjectPath(path)


def command(source, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    verb, _, path = line.strip().partition(" ")
    view = views.get(path)
    if view is not None and verb in ("cancel", "suspend", "resume"):
        getattr(view, {"cancel": "cancelRequested", "suspend": "suspendRequested", "resume": "resumeRequested"}[verb])()
    return True


check_against_xml(sys.argv[1])
Server(bus, "/JobViewServer")
names = [dbus.service.BusName(n, bus, replace_existing=True, do_not_queue=True) for n in ("org.kde.JobViewServer", "org.kde.kuiserver")]
loop = GLib.MainLoop()
GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, command)
emit(event="ready", owner=bus.get_unique_name())
loop.run()
