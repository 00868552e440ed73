#!/usr/bin/python3
"""A real LauncherEntry sender: libunity (gir1.2-unity-7.0) through PyGObject.

Usage: unity-emitter.py DESKTOP_ID STEP...
Steps run in order, with the GLib main loop turning between them:
  progress=F   entry.props.progress = F
  visible=0|1  entry.props.progress_visible
  urgent=0|1   entry.props.urgent
  count=N      entry.props.count (and count_visible)
  sleep=S      run the main loop for S seconds
  wait-unity   wait (up to 10 s) until com.canonical.Unity has an owner, as libunity needs
  exit         leave at once (os._exit), whatever is still showing
Prints "ready <unique name>" once the session bus is connected, then "done" at the end.
"""
import os
import sys
import time

import gi

gi.require_version("Unity", "7.0")
from gi.repository import Gio, GLib, Unity  # noqa: E402


def turn(seconds):
    context = GLib.MainContext.default()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        context.iteration(False)
        time.sleep(0.005)
    while context.pending():
        context.iteration(False)


def main():
    desktop_id, steps = sys.argv[1], sys.argv[2:]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    entry = Unity.LauncherEntry.get_for_desktop_id(desktop_id)
    print("ready", bus.get_unique_name(), flush=True)
    for step in steps:
        key, _, value = step.partition("=")
        if key == "progress":
            entry.props.progress = float(value)
        elif key == "visible":
            entry.props.progress_visible = value == "1"
        elif key == "urgent":
            entry.props.urgent = value == "1"
        elif key == "count":
            entry.props.count = int(value)
            entry.props.count_visible = True
        elif key == "sleep":
            turn(float(value))
        elif key == "wait-unity":
            inspector = Unity.Inspector.get_default()
            end = time.monotonic() + 10
            while not inspector.props.unity_running and time.monotonic() < end:
                turn(0.05)
            print("unity-running", inspector.props.unity_running, flush=True)
        elif key == "exit":
            sys.stdout.flush()
            os._exit(0)
        else:
            sys.exit("unknown step " + step)
        turn(0.05)
    turn(0.2)
    print("done", flush=True)


main()
