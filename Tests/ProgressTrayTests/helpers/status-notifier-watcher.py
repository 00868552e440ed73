#!/usr/bin/python3
"""A StatusNotifierWatcher written from KDE's description (the XML progressd embeds, argv[1],
whose org.kde.StatusNotifierWatcher interface this checks its methods against): it owns
org.kde.StatusNotifierWatcher, letting a later watcher replace it as Plasma's and waybar's
do, and prints each registration as a JSON line with the caller and the name's owner. With
`--replace` it takes the name from the watcher there is. stdin: `claim-tracker` owns
org.kde.JobViewServer (a stand-in for Plasma's job tracker), `release-tracker` lets it go;
end of input quits."""
import json
import sys
import xml.etree.ElementTree as ET

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

WATCHER = "org.kde.StatusNotifierWatcher"
SIGNATURES = {"RegisterStatusNotifierItem": ("s", ""), "RegisterStatusNotifierHost": ("s", "")}

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()


def check_against_xml(path):
    interface = next(i for i in ET.parse(path).getroot().findall("interface") if i.get("name") == WATCHER)
    methods = {m.get("name"): m for m in interface.findall("method")}
    if set(methods) != set(SIGNATURES):
        sys.exit("the XML's watcher methods are %s" % sorted(methods))
    for name, method in methods.items():
        args = method.findall("arg")
        ins = "".join(a.get("type") for a in args if a.get("direction", "in") == "in")
        outs = "".join(a.get("type") for a in args if a.get("direction") == "out")
        if (ins, outs) != SIGNATURES[name]:
            sys.exit("%s is (%s)->(%s) in the XML" % (name, ins, outs))


def emit(**event):
    print(json.dumps(event), flush=True)


class Watcher(dbus.service.Object):
    items = []

    @dbus.service.method(WATCHER, in_signature="s", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # As waybar's and Plasma's watchers: a bus name is taken with /StatusNotifierItem.
        owner = bus.get_name_owner(service) if not service.startswith("/") else sender
        Watcher.items.append(str(service))
        emit(event="register", service=str(service), sender=str(sender), owner=str(owner))
        self.StatusNotifierItemRegistered(service)

    @dbus.service.method(WATCHER, in_signature="s")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return {"RegisteredStatusNotifierItems": dbus.Array(Watcher.items, signature="s"),
                "IsStatusNotifierHostRegistered": True, "ProtocolVersion": dbus.Int32(0)}[name]


tracker = None


def command(source, condition):
    global tracker
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    verb = line.strip()
    if verb == "claim-tracker":
        tracker = dbus.service.BusName("org.kde.JobViewServer", bus, replace_existing=True, do_not_queue=True)
        emit(event="tracker", owner=bus.get_unique_name())
    elif verb == "release-tracker" and tracker is not None:
        bus.release_name("org.kde.JobViewServer")
        tracker = None
        emit(event="tracker-released")
    return True


check_against_xml(sys.argv[1])
Watcher(bus, "/StatusNotifierWatcher")
name = dbus.service.BusName(WATCHER, bus, allow_replacement=True, replace_existing="--replace" in sys.argv, do_not_queue=True)
loop = GLib.MainLoop()
GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, command)
emit(event="ready", owner=bus.get_unique_name())
loop.run()
