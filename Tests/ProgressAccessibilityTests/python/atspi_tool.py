#!/usr/bin/python3
"""What an assistive tool sees of progressd, through pyatspi (libatspi), as JSON.

  atspi_tool.py tree                   the progressd application and its bars, recursively
  atspi_tool.py listen EVENT... --stop FILE [--seconds N]
                                       prints READY once listening, then (when FILE exists
                                       or N seconds passed) every event received from
                                       progressd as JSON

Run with the test's private session bus in DBUS_SESSION_BUS_ADDRESS: libatspi finds the
accessibility bus with org.a11y.Bus.GetAddress there, as on a desktop.
"""
import json
import os
import sys
import time

import pyatspi
from gi.repository import Atspi
from gi.repository import GLib

APP_NAME = "progressd"


def find_app():
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and app.name == APP_NAME:
            return app
    return None


def describe(acc):
    item = {
        "name": acc.name,
        "description": acc.description,
        "role": int(acc.getRole()),
        "roleName": acc.getRoleName(),
        "states": sorted(pyatspi.stateToString(s) for s in acc.getState().getStates()),
        "index": acc.getIndexInParent(),
        "childCount": acc.childCount,
        "interfaces": sorted(acc.get_interfaces()),
        "attributes": dict(a.split(":", 1) for a in acc.getAttributes()),
        "children": [describe(acc.getChildAtIndex(i)) for i in range(acc.childCount)],
    }
    if "Value" in item["interfaces"]:
        value = acc.queryValue()
        item["value"] = {"current": value.currentValue, "minimum": value.minimumValue,
                         "maximum": value.maximumValue, "text": Atspi.Value.get_text(acc)}
    if "Component" in item["interfaces"]:
        component = acc.queryComponent()
        screen = component.getExtents(pyatspi.DESKTOP_COORDS)
        window = component.getExtents(pyatspi.WINDOW_COORDS)
        item["extents"] = {"screen": [screen.x, screen.y, screen.width, screen.height],
                           "window": [window.x, window.y, window.width, window.height]}
    return item


def tree():
    app = find_app()
    if app is None:
        return {"found": False}
    result = describe(app)
    result["found"] = True
    result["toolkit"] = app.get_toolkit_name()
    return result


def listen(events, stop_file, seconds):
    received = []
    started = time.monotonic()

    def on_event(event):
        try:
            app = event.source.get_application()
            if app is None or app.name != APP_NAME:
                return
            data = event.any_data
            if hasattr(data, "name"):  # an accessible (children-changed carries the child)
                data = {"name": data.name}
            item = {}
            if str(event.type).startswith("object:property-change:accessible-value"):
                # libatspi passes no number in any_data; a tool reads the value, as Orca does.
                item["value"] = event.source.queryValue().currentValue
            item.update({"type": str(event.type), "t": time.monotonic() - started, "monotonic": time.monotonic(),
                         "detail1": event.detail1,
                             "detail2": event.detail2, "data": data, "source": event.source.name,
                             "sourceRole": int(event.source.getRole())})
            received.append(item)
        except Exception as error:  # a bar may be gone by the time we look
            received.append({"type": str(event.type), "error": str(error)})

    for event in events:
        pyatspi.Registry.registerEventListener(on_event, event)

    # The stop file may name a value still owed (a paced event leaves late), or with "data:"
    # an event's text: then listening goes on until such an event is heard, or 20 s have
    # passed since the stop.
    stop_asked = []

    def check():
        now = time.monotonic()
        if not stop_asked and os.path.exists(stop_file):
            with open(stop_file) as wanted:
                text = wanted.read()
            if text.startswith("data:"):
                stop_asked.append((now, "data", text[len("data:"):]))
            else:
                stop_asked.append((now, "value", float(text) if text.strip() else None))
        done = now - started > seconds
        if stop_asked:
            asked, key, wanted = stop_asked[0]
            heard = wanted is None or any(item.get(key) == wanted for item in received)
            done = done or heard or now - asked > 20
        if done:
            pyatspi.Registry.stop()
            return False
        return True

    GLib.timeout_add(20, check)
    # The registry has the registration once the call returned; say so to the test.
    print("READY", flush=True)
    pyatspi.Registry.start()
    print(json.dumps(received), flush=True)


def main():
    if sys.argv[1] == "tree":
        print(json.dumps(tree()))
    elif sys.argv[1] == "listen":
        args = sys.argv[2:]
        stop = args[args.index("--stop") + 1]
        seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else 120
        events = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or not args[i - 1].startswith("--"))]
        listen(events, stop, seconds)


if __name__ == "__main__":
    main()
