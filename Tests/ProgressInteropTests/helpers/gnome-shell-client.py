#!/usr/bin/python3
"""A client of a headless GNOME Shell on the session bus, for GnomeShellInteropTests: it owns
org.gnome.Screenshot (on the shell's allow-list, so that its screenshots are not refused),
then answers one command a line on stdin with one JSON line on stdout; end of input quits.
  screenshot PATH X Y W H   org.gnome.Shell.Screenshot.ScreenshotArea into PATH
  eval CODE                 org.gnome.Shell.Eval (the test's unsafe-mode extension allows it)
  key NAME...               each key pressed and released on a virtual keyboard (Clutter's
                            KEY_NAME), through Eval, as a real keyboard's events
  a11y                      the shell's accessibility tree as pyatspi reads it: the progressd
                            indicator's name, every progress bar (name, value), every push
                            button, and what has the focus
  info UUID                 org.gnome.Shell.Extensions.GetExtensionInfo's state and error"""
import json
import sys

from gi.repository import Gio, GLib

bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
SHELL = "org.gnome.Shell"


def call(name, path, interface, method, parameters, reply_type=None):
    return bus.call_sync(name, path, interface, method, parameters,
                         GLib.VariantType(reply_type) if reply_type else None, Gio.DBusCallFlags.NONE, 20000, None)


def emit(**event):
    print(json.dumps(event), flush=True)


def shell_eval(code):
    ok, result = call(SHELL, "/org/gnome/Shell", SHELL, "Eval", GLib.Variant("(s)", (code,)), "(bs)").unpack()
    return ok, result


def accessible_tree():
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [desktop.getChildAtIndex(i) for i in range(desktop.childCount)]
    shell = next((app for app in apps if app is not None and app.name == "gnome-shell"), None)
    result = {"found": shell is not None, "indicator": None, "bars": [], "buttons": [], "focused": None}
    if shell is None:
        return result

    def walk(node):
        try:
            role = node.getRole()
            state = node.getState()
            name = node.name
        except Exception:
            return
        showing = state.contains(pyatspi.STATE_SHOWING)
        if role == pyatspi.ROLE_MENU and name and showing and result["indicator"] is None and " job" in name:
            result["indicator"] = name
        if role == pyatspi.ROLE_PROGRESS_BAR and showing:
            value = node.queryValue()
            result["bars"].append({"name": name, "value": value.currentValue, "min": value.minimumValue,
                                   "max": value.maximumValue})
        if role == pyatspi.ROLE_PUSH_BUTTON and showing and name:
            result["buttons"].append({"name": name, "focusable": state.contains(pyatspi.STATE_FOCUSABLE)})
        if state.contains(pyatspi.STATE_FOCUSED):
            result["focused"] = {"role": node.getRoleName(), "name": name}
        for index in range(node.childCount):
            child = node.getChildAtIndex(index)
            if child is not None:
                walk(child)

    walk(shell)
    return result


KEY_CODE = """
const {Clutter, GLib} = imports.gi;
global._progressdTestKeyboard = global._progressdTestKeyboard ||
    Clutter.get_default_backend().get_default_seat().create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
const time = GLib.get_monotonic_time();
global._progressdTestKeyboard.notify_keyval(time, Clutter.KEY_%s, Clutter.KeyState.PRESSED);
global._progressdTestKeyboard.notify_keyval(time + 1000, Clutter.KEY_%s, Clutter.KeyState.RELEASED);
'pressed';
"""

# RequestName flag 4: DO_NOT_QUEUE.
owned = call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
             GLib.Variant("(su)", ("org.gnome.Screenshot", 4)), "(u)").unpack()[0]
emit(event="ready", owned=owned == 1)

for line in sys.stdin:
    verb, _, rest = line.rstrip("\n").partition(" ")
    try:
        if verb == "screenshot":
            path, x, y, width, height = rest.split(" ")
            ok, written = call(SHELL + ".Screenshot", "/org/gnome/Shell/Screenshot", SHELL + ".Screenshot", "ScreenshotArea",
                               GLib.Variant("(iiiibs)", (int(x), int(y), int(width), int(height), False, path)),
                               "(bs)").unpack()
            emit(event="screenshot", ok=ok, path=written)
        elif verb == "eval":
            ok, result = shell_eval(rest)
            emit(event="eval", ok=ok, result=result)
        elif verb == "key":
            for key in rest.split(" "):
                ok, result = shell_eval(KEY_CODE % (key, key))
                if not ok:
                    break
            emit(event="key", ok=ok, result=result)
        elif verb == "a11y":
            emit(event="a11y", **accessible_tree())
        elif verb == "info":
            info = call(SHELL, "/org/gnome/Shell", SHELL + ".Extensions", "GetExtensionInfo", GLib.Variant("(s)", (rest,)),
                        "(a{sv})").unpack()[0]
            emit(event="info", state=info.get("state"), error=info.get("error"))
        else:
            emit(event="error", message="unknown command " + verb)
    except GLib.Error as error:
        emit(event="error", message=error.message)
