#!/usr/bin/env python3
"""Copies the tables of docs/results/*.md into README.md.

README.md marks each generated block with
    <!-- begin:NAME.md --> ... <!-- end:NAME.md -->
and this replaces what lies between with the command and machine lines,
table captions that start with "Per-repeat", and every table row of
docs/results/NAME.md. Run by tools/scripts/results.sh, so the README never shows
a figure the last run did not produce.

One block is derived rather than copied: "headline" is a few rows and
columns of db_bench.md, for the README's first screen.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# The headline: rows (configs) and columns of db_bench.md.
HEADLINE_ROWS = ["builtin_bloom_10", "builtin_ribbonmem_10", "sstfilter_cuckoo_10",
                 "sstfilter_fuse_10", "sstfilter_burr_10", "builtin_bloom_16",
                 "builtin_ribbonmem_16", "sstfilter_cuckoo_16", "sstfilter_fuse_16",
                 "sstfilter_burr_16"]
HEADLINE_COLUMNS = ["config", "bytes/key", "FPR", "data reads/1k miss", "readmissing ops/s"]


def headline():
    path = os.path.join(ROOT, "docs", "results", "db_bench.md")
    if not os.path.exists(path):
        return None
    lines = [l.rstrip("\n") for l in open(path)]
    command = next(l for l in lines if l.startswith("Command:")).rstrip()
    start = next(i for i, l in enumerate(lines) if l.startswith("| "))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in lines[start:end]
            if not l.startswith("|--")]  # the first table only
    header, body = rows[0], {r[0]: r for r in rows[1:]}
    cols = [header.index(c) for c in HEADLINE_COLUMNS]
    out = [f"{command} (docs/results/db_bench.md)", "",
           "| " + " | ".join(HEADLINE_COLUMNS) + " |",
           "|---|" + "---:|" * (len(cols) - 1)]
    for name in HEADLINE_ROWS:
        if name in body:
            out.append("| " + " | ".join(body[name][i] for i in cols) + " |")
    return "\n".join(out)


def block(name):
    if name == "headline":
        return headline()
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
