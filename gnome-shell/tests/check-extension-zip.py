#!/usr/bin/env python3
"""make test's check of `make extension`'s zip against extensions.gnome.org's review
guidelines (https://gjs.guide/extensions/review-guidelines/review-guidelines.html), read in
the zip's own files:
  - metadata.json: progressd's uuid, a name, description and url, and shell-version listing
    45 to 48 and only versions that load ES modules (no 43 or 44: one upload serves either
    the old or the new kind of extension);
  - only the files an extension needs, every one at the top as `gnome-extensions pack` puts
    them, and no copy of one of the shell's own modules;
  - ES modules only: no `imports.*`, no init(), an `export default class … extends
    Extension` with enable() and disable(); imports from gi://, the shell's resources and
    the zip's own files (no Gtk, Gdk or Adw, which must not load in the shell);
  - nothing made before enable(): a module's top level declares (imports, functions,
    classes, constants of plain data); the Extension subclass has no constructor;
  - everything undone in disable(): each field an object fills with what it made, connected
    or started is named again on the way out (disable, stop, destroy and what they call);
    each signal connection of an object that is no actor is kept to be disconnected;
  - no synchronous call: no *_sync function (D-Bus, processes, files) and no proxy made by
    makeProxyWrapper without a callback.
Prints each breach and exits 1 if there is any.
  python3 gnome-shell/tests/check-extension-zip.py progressd@progressd.org.shell-extension.zip
"""

import json
import re
import sys
import zipfile

UUID = "progressd@progressd.org"
REQUIRED_VERSIONS = {"45", "46", "47", "48"}
ALLOWED_SUFFIXES = (".js", ".json", ".css")
# The shell's modules an extension imports and must not ship a copy of (js/ui and js/misc of
# gnome-shell), and the names old extensions' copies went by.
SHELL_MODULES = {
    "main.js", "panel.js", "panelMenu.js", "popupMenu.js", "messageTray.js", "modalDialog.js",
    "dialog.js", "slider.js", "barLevel.js", "checkBox.js", "switcherPopup.js", "boxpointer.js",
    "extensionUtils.js", "extensionSystem.js", "extensionManager.js", "params.js", "util.js",
    "config.js", "signals.js", "quickSettings.js", "layout.js", "convenience.js", "lang.js",
}
SHELL_MODELINE = "// -*- mode: js; js-indent-level: 4; indent-tabs-mode: nil -*-"
IMPORT = re.compile(r"^import\s+(?:[\w{}\s,*]+\s+from\s+)?'([^']+)';", re.M)
FORBIDDEN_GI = {"Gtk", "Gdk", "Adw"}
SYNC = re.compile(r"\b(\w+_sync)\s*\(")
# What a top-level declaration may call: registering a GObject class, freezing or building
# plain data.
TOP_LEVEL_CALLS = {"GObject.registerClass", "Object.freeze", "new Set", "new Map", "Object.entries", "Object.keys"}
# What fills a field with something to undo.
# Plain JavaScript data (a Map, a Set...) goes with the object that holds it.
MADE = re.compile(r"\bnew (?!(?:Map|Set|WeakMap|Array|Date|GLib\.Variant)\b)\w|\.connect\(|\btimeout_add|\bidle_add|"
                  r"bus_own_name|bus_watch_name|signal_subscribe|addToStatusArea|\.connectObject\(")
TEARDOWN = {"disable", "stop", "destroy", "_onDestroy", "cancel"}


def strip(source):
    """The source with comments, strings, template literals and regular expressions emptied
    (same length, same lines), so that braces and calls are read as code."""
    out = []
    i = 0
    n = len(source)
    last_code = ""
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i) + 2
            out.append(re.sub(r"[^\n]", " ", source[i:end]))
            i = end
        elif c in "'\"`" or (c == "/" and last_code in "(,=:[!&|?{};"):
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", source[i + 1:j]) + c)
            i = j + 1
            last_code = "x"
        else:
            out.append(c)
            if not c.isspace():
                last_code = c
            i += 1
    return "".join(out)


def depths(code):
    """The brace depth at each character of stripped code (that of a brace's outside)."""
    depth = 0
    result = []
    for c in code:
        if c == "}":
            depth -= 1
        result.append(depth)
        if c == "{":
            depth += 1
    return result


def top_level(code):
    """The stripped code with everything inside braces or parentheses blanked, except the
    names called at depth 0, which stay."""
    level = depths(code)
    return "".join(c if level[i] == 0 or c == "\n" else " " for i, c in enumerate(code))


def classes(code):
    """{class name: (base, body)} of the classes in stripped code."""
    found = {}
    for match in re.finditer(r"\bclass (\w+)(?: extends ([\w.]+))? \{", code):
        start = match.end()
        depth = 1
        j = start
        while depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        found[match.group(1)] = (match.group(2) or "", code[start:j - 1])
    return found


def methods(body):
    """{method name: its body} of a class body (stripped code)."""
    level = depths(body)
    found = {}
    for match in re.finditer(r"^\s*(?:static\s+)?(?:async\s+)?(\w+)\s*\([^)]*\)\s*\{", body, re.M):
        if level[match.start(1)] != 0:
            continue
        start = match.end()
        depth = 1
        j = start
        while depth:
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            j += 1
        found[match.group(1)] = body[start:j - 1]
    return found


def check_metadata(files, problems):
    try:
        metadata = json.loads(files["metadata.json"])
    except (KeyError, ValueError) as error:
        problems.append(f"metadata.json: missing or not JSON ({error})")
        return
    if metadata.get("uuid") != UUID:
        problems.append(f"metadata.json: uuid is {metadata.get('uuid')!r}, not {UUID!r}")
    for key in ("name", "description", "url"):
        if not isinstance(metadata.get(key), str) or not metadata[key]:
            problems.append(f"metadata.json: no {key}")
    versions = metadata.get("shell-version")
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        problems.append(f"metadata.json: shell-version is {versions!r}, not a list of strings")
        return
    missing = REQUIRED_VERSIONS - set(versions)
    if missing:
        problems.append(f"metadata.json: shell-version lacks {sorted(missing)}")
    for version in versions:
        major = re.match(r"^(\d+)(?:\.(?:alpha|beta|rc|\d+))?$", version)
        if not major:
            problems.append(f"metadata.json: shell-version {version!r} is no GNOME Shell version")
        elif int(major.group(1)) < 45:
            problems.append(f"metadata.json: shell-version {version!r}: shells before 45 do not load ES modules")
    if sum(1 for v in versions if not v.isdigit()) > 1:
        problems.append("metadata.json: more than one development release in shell-version")


def check_files(names, files, problems):
    for name in names:
        if "/" in name:
            problems.append(f"{name}: not at the zip's top, where gnome-extensions pack puts files")
        elif not name.endswith(ALLOWED_SUFFIXES):
            problems.append(f"{name}: not a file the extension needs (only .js, .json and .css)")
        if name in SHELL_MODULES:
            problems.append(f"{name}: a copy of one of GNOME Shell's own modules")
    for name in ("extension.js", "metadata.json"):
        if name not in files:
            problems.append(f"{name}: missing")
    for name, source in files.items():
        if name.endswith(".js") and source.startswith(SHELL_MODELINE):
            problems.append(f"{name}: begins as GNOME Shell's own modules do (a bundled copy?)")


def check_module(name, source, files, problems):
    code = strip(source)
    for match in re.finditer(r"\bimports\.\w+", code):
        problems.append(f"{name}: {match.group(0)} (GNOME 45 and later load ES modules only)")
    if re.search(r"^function init\(", code, re.M):
        problems.append(f"{name}: init(), which GNOME 45 and later do not call")
    for target in IMPORT.findall(source):
        if target.startswith("gi://"):
            namespace = re.match(r"gi://(\w+)", target).group(1)
            if namespace in FORBIDDEN_GI:
                problems.append(f"{name}: imports {namespace}, which must not load in the shell")
        elif target.startswith("./"):
            if target[2:] not in files:
                problems.append(f"{name}: imports {target}, which the zip lacks")
        elif not target.startswith("resource:///org/gnome/shell/") and target not in ("gettext", "system", "cairo"):
            problems.append(f"{name}: imports {target}, neither the shell's nor the zip's")
    for match in SYNC.finditer(code):
        problems.append(f"{name}: calls {match.group(1)}, a synchronous call")
    if "makeProxyWrapper" in code:
        problems.append(f"{name}: makeProxyWrapper (its proxies are made synchronously unless given a callback)")
    # Nothing made before enable(): the top level only declares.
    top = top_level(code)
    for match in re.finditer(r"(new\s+[\w.]+|[\w.]+)\s*\(", top):
        called = re.sub(r"\s+", " ", match.group(1))
        if called in ("function", "if", "for", "while", "switch", "catch") or re.match(r"^function\b", called):
            continue
        line = top[:match.start()].count("\n") + 1
        preceding = top[:match.start()].rstrip()
        if preceding.endswith("function") or re.search(r"\bfunction\s+$", top[:match.start()]):
            continue
        if called not in TOP_LEVEL_CALLS:
            problems.append(f"{name}:{line}: {called}(…) runs when the module is imported, before enable()")
    return code


def check_lifecycle(name, code, problems):
    for class_name, (base, body) in classes(code).items():
        found = methods(body)
        if base == "Extension":
            if "constructor" in found:
                problems.append(f"{name}: {class_name} has a constructor, which runs before enable()")
            for required in ("enable", "disable"):
                if required not in found:
                    problems.append(f"{name}: {class_name} has no {required}()")
        is_actor = base.startswith(("St.", "Clutter.", "PanelMenu.", "PopupMenu."))
        # What runs on the way out: the teardown methods and what they call of their own.
        teardown = {method for method in found if method in TEARDOWN}
        grew = True
        while grew:
            called = {m for t in teardown for m in re.findall(r"\bthis\.(\w+)\(", found[t]) if m in found}
            grew = not called <= teardown
            teardown |= called
        undone = " ".join(found[t] for t in teardown)
        # The constructor and _init of an actor make its children, destroyed with it.
        for method, text in found.items():
            if method in teardown:
                continue
            for match in re.finditer(r"\bthis\.(_\w+)\s*=\s*([^;]*)", text):
                field, value = match.groups()
                if not MADE.search(value):
                    continue
                child = is_actor and re.search(
                    rf"(add_child|addMenuItem|set_accessible|add_actor)\(this\.{field}\b", body)
                if child or (is_actor and method == "_init" and not re.search(r"\.connect\(|timeout_add", value)):
                    continue
                if not re.search(rf"\bthis\.{field}\b", undone):
                    problems.append(f"{name}: {class_name}.{method} keeps {field} = {value.strip()[:40]}…, "
                                    f"which no teardown ({', '.join(sorted(teardown)) or 'none'}) undoes")
            if not is_actor:
                for match in re.finditer(r"\.connect\(", text):
                    statement_start = max(text.rfind(";", 0, match.start()), text.rfind("{", 0, match.start()),
                                          text.rfind("}", 0, match.start()))
                    if not re.search(r"this\.\w+\s*=", text[statement_start:match.start()]):
                        problems.append(f"{name}: {class_name}.{method} connects a signal it keeps no id of")


def main(path):
    problems = []
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        files = {name: archive.read(name).decode("utf-8") for name in names}
    check_metadata(files, problems)
    check_files(names, files, problems)
    for name, source in sorted(files.items()):
        if name.endswith(".js"):
            code = check_module(name, source, files, problems)
            check_lifecycle(name, code, problems)
    if not re.search(r"^export default class \w+ extends Extension\b", files.get("extension.js", ""), re.M):
        problems.append("extension.js: no `export default class … extends Extension`")
    if "resource:///org/gnome/shell/extensions/extension.js" not in files.get("extension.js", ""):
        problems.append("extension.js: Extension is not imported from the shell's extensions/extension.js")
    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    modules = sum(1 for name in names if name.endswith(".js"))
    print(f"extension zip: {len(names)} files ({modules} modules), {len(problems)} breaches of the review guidelines")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
