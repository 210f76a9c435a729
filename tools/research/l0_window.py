#!/usr/bin/env python3
"""What L0 files can gain within a memory window, by tree_model.

A tree of one level of --keys keys whose files spend the budget, then k
flushes of --flush-keys keys each into L0. The levels were built before
the flushes and are not rebuilt by them, and the same tree with no L0 files
(before the flushes, or after the next L0 compaction) must not spend under
uniform's bytes: so the levels spend at least the budget, and the L0 files
can take at most the window's share of the tree's bytes on top. Per filter
type, k and window, the table gives the false positives per absent lookup
that such a tree can expect at best (the L0 files given the whole window),
over the least any split of the same bytes among its runs can expect
(tree_model's `actual` over `optimum`). Deterministic: no RocksDB needed.

    tools/research/l0_window.py [--tree-model build/tools/tree_model]
"""

import argparse
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ratio(tree_model, filter_type, bits, keys, files, flushes, flush_keys, window):
    uniform_bytes = (keys + flushes * flush_keys) * bits / 8
    extra = window * uniform_bytes / flushes
    lines = [f"budget {filter_type} {bits:g}"]
    lines += [f"run {flush_keys} 1 {flush_keys * bits / 8 + extra:.0f}"] * flushes
    lines.append(f"run {keys} {files} {keys * bits / 8:.0f}")
    out = subprocess.run([tree_model], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")[0]
    fields = dict(item.split("=") for item in out.split())
    return float(fields["actual"]) / float(fields["optimum"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree-model", default=os.path.join(ROOT, "build", "tools", "tree_model"))
    ap.add_argument("--bits", type=float, default=10)
    ap.add_argument("--keys", type=int, default=650_000, help="the levels' keys")
    ap.add_argument("--files", type=int, default=40, help="the levels' files")
    ap.add_argument("--flush-keys", type=int, default=3_500, help="keys per L0 file")
    args = ap.parse_args()
    windows = (0.004, 0.008, 0.010)
    flush_counts = (1, 3, 5, 7)
    print(f"{args.keys:,} keys in {args.files} files at {args.bits:g} bits/key, then k flushes "
          f"of {args.flush_keys:,} keys; the L0 files take the window's share of the tree's "
          "bytes on top. Expected false positives over the optimum for the same bytes:\n")
    print("| filter | k | " + " | ".join(f"window {w:.1%}" for w in windows) + " |")
    print("|---|---:|" + "---:|" * len(windows))
    for filter_type in ("bloom", "cuckoo", "fuse"):
        for k in flush_counts:
            cells = [f"{ratio(args.tree_model, filter_type, args.bits, args.keys, args.files, k, args.flush_keys, w):.2f}"
                     for w in windows]
            print(f"| {filter_type} | {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
