#!/usr/bin/env python3
"""progressd's GNOME Shell extension, from one source for every shell it runs in.

gnome-shell/shared/ holds the extension's modules as ES modules, as GNOME Shell 45 and later
load them; gnome-shell/entry-45/ holds that shell's entry point and metadata. GNOME Shell 43
and 44 load only `imports`-style scripts, so this script writes the same modules in that
form, beside that shell's own entry point and metadata (gnome-shell/entry-43/). The rewrite
is of the module lines alone (imports, exports); every other line is copied as it is, so the
two extensions cannot differ in what they do. Both forms are written into build folders
(`make extension-forms`), never kept in the source tree.

  shell-extension.py legacy DIR      the 43/44 extension's files into DIR
  shell-extension.py assemble DIR    the 45-and-later extension's files into DIR
  shell-extension.py zip DIR ZIP     DIR as `gnome-extensions pack` would zip it
"""

import os
import re
import sys
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gnome-shell")
SHARED = os.path.join(ROOT, "shared")
ENTRY_45 = os.path.join(ROOT, "entry-45")
ENTRY_43 = os.path.join(ROOT, "entry-43")
# Files that are the same in both extensions, copied as they are.
COPIED = ["stylesheet.css"]

GI_IMPORT = re.compile(r"^import (\w+) from 'gi://(\w+)(?:\?version=([\d.]+))?';$")
BUILTIN_IMPORT = re.compile(r"^import (\w+) from '(gettext|system|cairo)';$")
SHELL_IMPORT = re.compile(r"^import \* as (\w+) from 'resource:///org/gnome/shell/((?:ui|misc)/\w+)\.js';$")
LOCAL_IMPORT = re.compile(r"^import (\{[\w, ]+\}) from '\./(\w+)\.js';$")
EXPORT_CLASS = re.compile(r"^export class (\w+)")
EXPORT_CONST = re.compile(r"^export const (\w+) = ")
EXPORT_FUNCTION = re.compile(r"^export function (\w+)\(")


class ConversionError(Exception):
    pass


def legacy_module(name, source):
    """The 43/44 form of the ES module `name`.js, whose text is `source`."""
    out = []
    exported = []
    closing_class = False
    uses_me = False
    first_import = None
    for number, line in enumerate(source.split("\n"), 1):
        where = f"gnome-shell/shared/{name}.js:{number}"
        if closing_class and line == "}":
            out.append("};")
            closing_class = False
            continue
        match = GI_IMPORT.match(line)
        if match:
            binding, namespace, version = match.groups()
            if version:
                out.append(f"imports.gi.versions.{namespace} = '{version}';")
            line = f"const {binding} = imports.gi.{namespace};"
        elif match := BUILTIN_IMPORT.match(line):
            line = f"const {match.group(1)} = imports.{match.group(2)};"
        elif match := SHELL_IMPORT.match(line):
            line = f"const {match.group(1)} = imports.{match.group(2).replace('/', '.')};"
        elif match := LOCAL_IMPORT.match(line):
            uses_me = True
            line = f"const {match.group(1)} = Me.imports.{match.group(2)};"
        elif match := EXPORT_CLASS.match(line):
            exported.append(match.group(1))
            if closing_class:
                raise ConversionError(f"{where}: a class begins before the one before it ends")
            closing_class = True
            line = f"var {match.group(1)} = class {match.group(1)}" + line[match.end():]
        elif match := EXPORT_CONST.match(line):
            exported.append(match.group(1))
            line = f"var {match.group(1)} = " + line[match.end():]
        elif match := EXPORT_FUNCTION.match(line):
            exported.append(match.group(1))
            line = line[len("export "):]
        elif line.startswith(("import ", "export ")) or re.match(r"^\s*import\(", line):
            raise ConversionError(f"{where}: a module line this script does not rewrite: {line}")
        if line.startswith("const ") and "imports." in line and first_import is None:
            first_import = len(out)
        out.append(line)
    if closing_class:
        raise ConversionError(f"gnome-shell/shared/{name}.js: an exported class does not end with a lone '}}'")
    if not exported:
        raise ConversionError(f"gnome-shell/shared/{name}.js exports nothing")
    lead = [
        f"// Written by scripts/shell-extension.py from gnome-shell/shared/{name}.js for GNOME Shell 43 and 44:",
        "// edit that file, not this one.",
        "",
    ]
    declarations = [f"/* exported {', '.join(exported)} */", ""]
    if uses_me:
        declarations.append("const Me = imports.misc.extensionUtils.getCurrentExtension();")
    position = first_import if first_import is not None else next(
        (i for i, line in enumerate(out) if line and not line.startswith("//")), len(out))
    return "\n".join(lead + out[:position] + declarations + out[position:])


def legacy_files():
    """The 43/44 extension: {file name: bytes}, its modules written from the shared ones."""
    files = {}
    for entry in sorted(os.listdir(SHARED)):
        path = os.path.join(SHARED, entry)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if entry.endswith(".js"):
            files[entry] = legacy_module(entry[:-3], text).encode("utf-8")
        elif entry in COPIED:
            files[entry] = text.encode("utf-8")
        else:
            raise ConversionError(f"gnome-shell/shared/{entry}: neither a module nor a file to copy")
    files.update(folder_files(ENTRY_43))
    return files


def modern_files():
    """The 45-and-later extension: {file name: bytes}, the shared modules and its entry."""
    files = folder_files(SHARED)
    files.update(folder_files(ENTRY_45))
    return files


def folder_files(folder):
    files = {}
    for entry in os.listdir(folder):
        with open(os.path.join(folder, entry), "rb") as handle:
            files[entry] = handle.read()
    return files


def write_folder(directory, files):
    """DIRECTORY holds FILES and nothing else; a file already as wanted is not written again,
    so that make sees it unchanged."""
    os.makedirs(directory, exist_ok=True)
    for entry in os.listdir(directory):
        if entry not in files:
            os.remove(os.path.join(directory, entry))
    for entry, data in sorted(files.items()):
        target = os.path.join(directory, entry)
        if os.path.exists(target):
            with open(target, "rb") as handle:
                if handle.read() == data:
                    continue
        with open(target, "wb") as handle:
            handle.write(data)
    return 0


def pack(directory, archive):
    """The zip `gnome-extensions pack` writes (every file at the top, metadata.json among
    them), with fixed dates and order so that the same sources give the same bytes."""
    partial = archive + ".partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
        for entry in sorted(os.listdir(directory)):
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(os.path.join(directory, entry), "rb") as handle:
                out.writestr(info, handle.read())
    os.replace(partial, archive)
    return 0


def main(arguments):
    try:
        if arguments[:1] == ["legacy"] and len(arguments) == 2:
            return write_folder(arguments[1], legacy_files())
        if arguments[:1] == ["assemble"] and len(arguments) == 2:
            return write_folder(arguments[1], modern_files())
        if arguments[:1] == ["zip"] and len(arguments) == 3:
            return pack(arguments[1], arguments[2])
    except ConversionError as error:
        print(error, file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
