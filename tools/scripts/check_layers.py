#!/usr/bin/env python3
"""Checks the include graph of plugin/: no include points up or across
layers, and no file includes itself through others (a circle).

A plugin file includes another as "<layer>/<file>.h" or, for the public
API, <sstfilter/<file>.h>. Layers, lowest first; a file may include its own
layer and any layer of lower rank, never one of the same rank beside it:

    include (public API) < format < filters, range < dynamic, allocation
                         < rocksdb_adapter, leveldb_adapter < guard, migrate

Prints each offending include and exits 1 if there is one.
"""
import os
import re
import sys

RANK = {"include": 0, "format": 1, "filters": 2, "range": 2, "dynamic": 3, "allocation": 3,
        "rocksdb_adapter": 4, "leveldb_adapter": 4, "guard": 5, "migrate": 5}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def layer_of(path):  # path relative to plugin/
    return path.split("/")[0]


def target_of(name):  # an include's text -> plugin-relative path, or None
    if name.startswith("sstfilter/"):
        return "include/" + name
    if name.split("/")[0] in RANK and name.count("/") == 1:
        return name
    return None


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugin")
    edges, bad = {}, []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith((".h", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            layer = layer_of(rel)
            if layer not in RANK:
                bad.append(f"{rel}: in no known layer")
                continue
            with open(os.path.join(dirpath, f)) as fh:
                text = fh.read()
            for name in INCLUDE.findall(text):
                target = target_of(name)
                if target is None:
                    continue  # a system, engine or third-party header
                if not os.path.exists(os.path.join(root, target)):
                    if name.split("/")[0] not in ("rocksdb", "leveldb"):
                        bad.append(f"{rel}: includes {name}, which does not exist")
                    continue  # the engine's own "rocksdb/..." or "leveldb/..."
                edges.setdefault(rel, []).append(target)
                to = layer_of(target)
                if to != layer and RANK[to] >= RANK[layer]:
                    way = "up" if RANK[to] > RANK[layer] else "across"
                    bad.append(f"{rel}: includes {name} ({way}: {layer} -> {to})")
    # Circles: depth-first search over the file graph.
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                bad.append("circle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    for line in bad:
        print("check_layers: " + line)
    if bad:
        return 1
    print(f"check_layers: {len(edges)} files, every include points down or within its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
