#!/usr/bin/env python3
"""Budget sweep of the multi-level db_bench shape, for the chart of
data-block reads per 1000 missing lookups against total filter bytes/key.

For each budget (--bits), writes the multi-level configs of seven filters at
that budget into a temporary folder, from the 10 bits/key files in
db_bench_configs/multilevel/ (only the number and, for uniform Bloom, the
allocation differ): built-in Bloom, sstfilter.bloom uniform and monkey,
sstfilter.cuckoo uniform and monkey, sstfilter.fuse uniform and monkey. Then
one tools/bench/db_bench_compare.py --multilevel run over all of them (fills, then
reads interleaved), whose table gives each config's total filter bytes/key,
filter false positives and data-block reads per 1000 missing lookups. Read
counts do not depend on timing, so one repeat (--reps 1, the default here)
is enough for them.

    tools/bench/multilevel_sweep.py --csv docs/charts/multilevel_sweep.csv
    tools/scripts/plot_multilevel_sweep.sh docs/charts/multilevel_sweep.csv

Writes the CSV (filter,allocation,budget_bits_per_key,filter_bytes_per_key,
fps_per_1k_miss,data_reads_per_1k_miss) and prints the compare run's table.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(ROOT, "db_bench_configs", "multilevel")
# (config name prefix, template at 10 bits/key, filter, allocation)
LINES = [
    ("builtin_bloom", "builtin_bloom_10", "builtin Bloom", "uniform"),
    ("sstfilter_bloom", "sstfilter_bloom_monkey_10", "sstfilter.bloom", "uniform"),
    ("sstfilter_bloom_monkey", "sstfilter_bloom_monkey_10", "sstfilter.bloom", "monkey"),
    ("sstfilter_cuckoo", "sstfilter_cuckoo_10", "sstfilter.cuckoo", "uniform"),
    ("sstfilter_cuckoo_monkey", "sstfilter_cuckoo_monkey_10", "sstfilter.cuckoo", "monkey"),
    ("sstfilter_fuse", "sstfilter_fuse_10", "sstfilter.fuse", "uniform"),
    ("sstfilter_fuse_monkey", "sstfilter_fuse_monkey_10", "sstfilter.fuse", "monkey"),
]


def write_config(src, dst, bits, allocation):
    with open(src) as f:
        text = f.read()
    policy = re.compile(r"^(\s*filter_policy=)(.*)$", re.M)
    m = policy.search(text)
    if not m:
        sys.exit(f"error: no filter_policy in {src}")
    value = m.group(2)
    value = re.sub(r"bloomfilter:10:", f"bloomfilter:{bits}:", value)
    value = re.sub(r"bits_per_key=10\b", f"bits_per_key={bits}", value)
    value = re.sub(r"allocation=\w+", f"allocation={allocation}", value)
    if value == m.group(2) and bits != 10:
        sys.exit(f"error: cannot set {bits} bits/key in {src}")
    with open(dst, "w") as f:
        f.write(text[:m.start(2)] + value + text[m.end(2):])


def first_number(cell):
    m = re.match(r"\s*([0-9][0-9,]*\.?[0-9]*)", cell)
    return float(m.group(1).replace(",", "")) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bits", default="6,8,10,12,14,16", help="budgets, bits/key")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--csv", required=True)
    ap.add_argument("compare_args", nargs="*",
                    help="passed to db_bench_compare.py (after --), e.g. --plugin")
    args = ap.parse_args()
    budgets = [int(b) for b in args.bits.split(",")]

    with tempfile.TemporaryDirectory(prefix="multilevel_sweep.") as cfg_dir:
        meta = {}
        for bits in budgets:
            for prefix, template, filt, alloc in LINES:
                name = f"{prefix}_{bits}"
                write_config(os.path.join(TEMPLATES, template + ".ini"),
                             os.path.join(cfg_dir, name + ".ini"), bits, alloc)
                meta[name] = (filt, alloc, bits)
        cmd = [sys.executable, os.path.join(ROOT, "tools", "bench", "db_bench_compare.py"),
               "--multilevel", "--configs-dir", cfg_dir, "--reps", str(args.reps)]
        cmd += args.compare_args
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        print(out.stdout)
        if out.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)} exited {out.returncode}")

    rows = []
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or cells[0] not in meta:
            continue
        filt, alloc, bits = meta[cells[0]]
        rows.append((filt, alloc, bits, first_number(cells[1]), first_number(cells[4]),
                     first_number(cells[5])))
    if len(rows) != len(meta):
        sys.exit(f"error: {len(rows)} of {len(meta)} configs in the table")
    rows.sort()
    with open(args.csv, "w") as f:
        f.write("filter,allocation,budget_bits_per_key,filter_bytes_per_key,"
                "fps_per_1k_miss,data_reads_per_1k_miss\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.4f},{r[4]:.2f},{r[5]:.2f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
