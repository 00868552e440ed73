#!/usr/bin/env python3
"""Writes the reference part of docs/api.md and docs/renderer.md from the interface XML.

The XML's comments are the documentation of every method, property, signal and error
(the daemon embeds the same file and a test keeps its introspection equal to it), so the
pages carry what the XML says, generated, between their reference markers.

    python3 scripts/api-reference.py dbus/org.progressd.Progress1.xml   # prints that part
    python3 scripts/api-reference.py --write                            # rewrites both pages

ApiReferenceTests (Tests/ProgressctlProgramTests) fails when a page differs from what this
prints, so an XML change without `--write` does not go unnoticed.
"""
import os
import sys
import textwrap
from xml.dom import minidom

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = [
    ("docs/api.md", "dbus/org.progressd.Progress1.xml"),
    ("docs/renderer.md", "dbus/org.progressd.Renderer1.xml"),
]
BEGIN = "<!-- reference -->"
END = "<!-- /reference -->"


def dedented(comment):
    """A comment's text without its common indentation and its blank first and last lines."""
    return textwrap.dedent(comment.data.strip("\n")).strip("\n")


def without_title(text, title):
    """The comment of a member starts with "Name:"; of an interface, with "name:" and
    "@short_description: ...". Returns (short description, the rest)."""
    lines = text.split("\n")
    short = ""
    if lines and lines[0].startswith(title + ":"):
        first = lines[0][len(title) + 1:].strip()
        lines = lines[1:]
        if first:
            lines.insert(0, first)
    if lines and lines[0].startswith("@short_description:"):
        short = lines[0][len("@short_description:"):].strip()
        lines = lines[1:]
    return short, textwrap.dedent("\n".join(lines)).strip("\n")


def text_block(text):
    return ["```text", text, "```", ""] if text else []


def comment_before(node):
    """The comment right before an element, skipping whitespace."""
    sibling = node.previousSibling
    while sibling is not None and sibling.nodeType == sibling.TEXT_NODE and not sibling.data.strip():
        sibling = sibling.previousSibling
    return sibling if sibling is not None and sibling.nodeType == sibling.COMMENT_NODE else None


def signature(element):
    args = [a for a in element.getElementsByTagName("arg")]
    if element.tagName == "signal":
        return "%s(%s)" % (element.getAttribute("name"),
                           ", ".join("%s %s" % (a.getAttribute("type"), a.getAttribute("name")) for a in args))
    ins = [a for a in args if a.getAttribute("direction") != "out"]
    outs = [a for a in args if a.getAttribute("direction") == "out"]
    text = "%s(%s)" % (element.getAttribute("name"),
                       ", ".join("%s %s" % (a.getAttribute("type"), a.getAttribute("name")) for a in ins))
    if outs:
        text += " → (%s)" % ", ".join("%s %s" % (a.getAttribute("type"), a.getAttribute("name")) for a in outs)
    return text


def property_line(element):
    emits = [a.getAttribute("value") for a in element.getElementsByTagName("annotation")
             if a.getAttribute("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal"]
    line = "`%s %s` (%s" % (element.getAttribute("type"), element.getAttribute("name"), element.getAttribute("access"))
    return line + ("; PropertiesChanged: %s)" % emits[0] if emits else ")")


def reference(xml_path):
    document = minidom.parse(xml_path)
    source = os.path.relpath(xml_path, ROOT)
    out = [BEGIN, "",
           "*Written by `scripts/api-reference.py` from [`%s`](../%s): change the XML, then run"
           " `python3 scripts/api-reference.py --write`.*" % (source, source), ""]
    top = next((c for c in document.childNodes if c.nodeType == c.COMMENT_NODE), None)
    if top is not None:
        out += ["### General rules", ""] + text_block(dedented(top))
    for interface in document.documentElement.getElementsByTagName("interface"):
        name = interface.getAttribute("name")
        comment = comment_before(interface)
        short, body = without_title(dedented(comment), name) if comment else ("", "")
        out += ["### %s" % name, ""]
        if short:
            out += [short + ".", ""]
        out += text_block(body)
        for kind, title in (("method", "Methods"), ("property", "Properties"), ("signal", "Signals")):
            members = [m for m in interface.childNodes if m.nodeType == m.ELEMENT_NODE and m.tagName == kind]
            if not members:
                continue
            out += ["#### %s of %s" % (title, name), ""]
            for member in members:
                member_name = member.getAttribute("name")
                comment = comment_before(member)
                _, body = without_title(dedented(comment), member_name) if comment else ("", "")
                line = property_line(member) if kind == "property" else "`%s`" % signature(member)
                out += ["##### %s" % member_name, "", line, ""] + text_block(body)
    return "\n".join(out + [END])


def replaced(page_text, part):
    before, rest = page_text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return before + part + after


def main(arguments):
    if arguments == ["--write"]:
        for page, xml in PAGES:
            path = os.path.join(ROOT, page)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(replaced(text, reference(os.path.join(ROOT, xml))))
        return 0
    if len(arguments) == 1 and not arguments[0].startswith("-"):
        sys.stdout.write(reference(os.path.abspath(arguments[0])) + "\n")
        return 0
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
