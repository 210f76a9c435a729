#!/usr/bin/env python3
"""Copies the tables of docs/results/*.md into README.md.

README.md marks each generated block with
    <!-- begin:NAME.md --> ... <!-- end:NAME.md -->
and this replaces what lies between with the command and machine lines,
table captions that start with "Per-repeat", and every table row of
docs/results/NAME.md. Run by tools/results.sh, so the README never shows
a figure the last run did not produce.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def block(name):
    path = os.path.join(ROOT, "docs", "results", name)
    if not os.path.exists(path):
        return None
    keep = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(("Command:", "Machine:", "|")) or line.startswith("fuzz:"):
            keep.append(line)
        elif line.startswith("Per-repeat"):  # a caption: its own paragraph
            keep += ["", line]
        elif line.startswith("Workload:"):
            keep.append(line + "  ")
    # A blank line before every table (a row followed by its |--- rule).
    out = []
    for i, line in enumerate(keep):
        starts_table = (line.startswith("|") and i + 1 < len(keep)
                        and keep[i + 1].startswith("|--"))
        if starts_table:
            out.append("")
        out.append(line if not line.startswith("fuzz:") else "    " + line)
    return "\n".join(out)


def main():
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    missing = []

    def fill(m):
        content = block(m.group(1))
        if content is None:
            missing.append(m.group(1))
            return m.group(0)
        return f"<!-- begin:{m.group(1)} -->\n{content}\n<!-- end:{m.group(1)} -->"

    text = re.sub(r"<!-- begin:(\S+) -->.*?<!-- end:\1 -->", fill, text, flags=re.S)
    open(readme, "w").write(text)
    if missing:
        print("not generated yet: " + ", ".join(missing), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
