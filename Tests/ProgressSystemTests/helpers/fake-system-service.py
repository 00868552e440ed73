#!/usr/bin/python3
"""A system service for progressd's system-job tests, on the bus DBUS_SYSTEM_BUS_ADDRESS
names: argv[1] is the bus name to own, argv[2:] the introspection XML files whose
interfaces it serves. GDBus checks every call and reply against those interfaces, and
GetAll answers from them, so the fake speaks the real service's types.

Commands on stdin, one JSON object a line (end of input quits):
  {"op": "own"} / {"op": "release"}       take or give up the bus name
  {"op": "set", "path": P, "interface": I, "props": {NAME: [SIG, VALUE]}}
        export the object (first time) or change properties; a change is announced with
        PropertiesChanged unless the XML marks the property EmitsChangedSignal false. An
        object under an ObjectManager root (argv --manager ROOT) is announced with
        InterfacesAdded when new.
  {"op": "remove", "path": P}              unexport it (InterfacesRemoved under a manager)
  {"op": "signal", "path": P, "interface": I, "member": M, "sig": S, "args": [...]}
  {"op": "answer", "member": M, "error": NAME, "message": TEXT}   how M fails from now on
  {"op": "unanswer", "member": M}          M succeeds again
Printed, one JSON line each: {"event": "owned"}, {"event": "called", "member": M, "path": P},
{"event": "aborted"} (a Properties.Get of PackageKit's RemainingTime, which aborts the real
packagekitd 1.2.6: the fake then exits as it does)."""
import json
import os
import sys
import xml.etree.ElementTree as ET

from gi.repository import Gio, GLib

name = sys.argv[1]
manager_root = None
files = sys.argv[2:]
if files[:1] == ["--manager"]:
    manager_root, files = files[1], files[2:]

interfaces = {}
quiet = set()
for path in files:
    node = Gio.DBusNodeInfo.new_for_xml(open(path).read())
    for info in node.interfaces:
        interfaces[info.name] = info
    for interface in ET.parse(path).getroot().iter("interface"):
        for prop in interface.iter("property"):
            for note in prop.iter("annotation"):
                if note.get("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal" and note.get("value") in ("false", "const"):
                    quiet.add((interface.get("name"), prop.get("name")))

bus = Gio.DBusConnection.new_for_address_sync(
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
objects = {}   # path -> {interface: {property: Variant}}
registrations = {}  # path -> [ids]
answers = {}


def emit(**event):
    print(json.dumps(event), flush=True)


def default(sig):
    """A property the test did not set: its type's zero, as a fresh object of the service has."""
    zero = {"s": "", "o": "/", "g": "", "b": False, "d": 0.0}
    if sig in zero:
        return GLib.Variant(sig, zero[sig])
    if sig.startswith("a{"):
        return GLib.Variant(sig, {})
    if sig.startswith("a"):
        return GLib.Variant(sig, [])
    return GLib.Variant(sig, 0)


def plain(value):
    """JSON to what GLib.Variant takes: ["__variant__", SIG, VALUE] is a boxed value (for a{sv})."""
    if isinstance(value, list) and len(value) == 3 and value[0] == "__variant__":
        return variant(value[1], value[2])
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def variant(sig, value):
    value = plain(value)
    if sig == "ay":
        return GLib.Variant(sig, value.encode() + b"\0" if isinstance(value, str) else bytes(value))
    if sig.startswith("(") and isinstance(value, list):
        value = tuple(value)
    return GLib.Variant(sig, value)


def abort_filter(connection, message, incoming):
    if incoming and message.get_member() == "Get" and message.get_interface() == "org.freedesktop.DBus.Properties":
        body = message.get_body()
        if body is not None and body.unpack()[1] == "RemainingTime":
            emit(event="aborted")
            os._exit(134)
    return message


bus.add_filter(abort_filter)


def transaction_list():
    return [p for p, ifaces in objects.items() if "org.freedesktop.PackageKit.Transaction" in ifaces]


def managed_objects():
    return {p: ifaces for p, ifaces in objects.items() if manager_root and p.startswith(manager_root + "/")}


def method_call(connection, sender, path, interface, member, parameters, invocation):
    emit(event="called", path=path, interface=interface, member=member, args=parameters.unpack())
    if member in answers:
        invocation.return_dbus_error(answers[member]["error"], answers[member]["message"])
    elif member == "GetTransactionList":
        invocation.return_value(GLib.Variant("(ao)", (transaction_list(),)))
    elif member == "GetManagedObjects":
        invocation.return_value(GLib.Variant("(a{oa{sa{sv}}})", (managed_objects(),)))
    elif member == "ListTransfers":
        rows = []
        for p, ifaces in objects.items():
            t = ifaces.get("org.freedesktop.import1.Transfer")
            if t:
                rows.append((t["Id"].unpack(), t["Type"].unpack(), t["Remote"].unpack(), t["Local"].unpack(),
                             t["Progress"].unpack(), p))
        invocation.return_value(GLib.Variant("(a(usssdo))", (rows,)))
    else:
        invocation.return_value(None)


def get_property(connection, sender, path, interface, prop):
    return objects.get(path, {}).get(interface, {}).get(prop)


def export(path, interface):
    ids = registrations.setdefault(path, [])
    ids.append(bus.register_object(path, interfaces[interface], method_call, get_property, None))


def command(line):
    c = json.loads(line)
    op = c["op"]
    if op == "own":
        Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE, lambda *a: emit(event="owned"), None)
    elif op == "release":
        bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReleaseName",
                      GLib.Variant("(s)", (name,)), None, Gio.DBusCallFlags.NONE, -1, None)
        emit(event="released")
    elif op == "set":
        path, interface = c["path"], c["interface"]
        props = {k: variant(v[0], v[1]) for k, v in c["props"].items()}
        ifaces = objects.setdefault(path, {})
        new = interface not in ifaces
        if new:
            ifaces[interface] = {p.name: default(p.signature) for p in interfaces[interface].properties}
        ifaces[interface].update(props)
        if new:
            export(path, interface)
            if manager_root and path.startswith(manager_root + "/"):
                bus.emit_signal(None, manager_root, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                                GLib.Variant("(oa{sa{sv}})", (path, {interface: ifaces[interface]})))
        else:
            loud = {k: v for k, v in props.items() if (interface, k) not in quiet}
            if loud:
                bus.emit_signal(None, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                GLib.Variant("(sa{sv}as)", (interface, loud, [])))
    elif op == "remove":
        path = c["path"]
        for i in registrations.pop(path, []):
            bus.unregister_object(i)
        ifaces = objects.pop(path, {})
        if manager_root and path.startswith(manager_root + "/"):
            bus.emit_signal(None, manager_root, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                            GLib.Variant("(oas)", (path, list(ifaces))))
    elif op == "signal":
        bus.emit_signal(None, c["path"], c["interface"], c["member"], variant(c["sig"], c["args"]))
    elif op == "answer":
        answers[c["member"]] = c
    elif op == "unanswer":
        answers.pop(c["member"], None)
    bus.flush_sync(None)
    emit(event="done", op=op)


def on_input(channel, condition):
    line = channel.readline()
    if not line:
        loop.quit()
        return False
    command(line)
    return True


if manager_root:
    manager = Gio.DBusNodeInfo.new_for_xml("""<node><interface name="org.freedesktop.DBus.ObjectManager">
      <method name="GetManagedObjects"><arg type="a{oa{sa{sv}}}" direction="out"/></method>
      <signal name="InterfacesAdded"><arg type="o"/><arg type="a{sa{sv}}"/></signal>
      <signal name="InterfacesRemoved"><arg type="o"/><arg type="as"/></signal></interface></node>""")
    interfaces[manager.interfaces[0].name] = manager.interfaces[0]
    export(manager_root, manager.interfaces[0].name)

loop = GLib.MainLoop()
GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_input)
emit(event="ready")
loop.run()
