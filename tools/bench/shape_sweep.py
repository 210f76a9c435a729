#!/usr/bin/env python3
"""Level-aware allocation across many LSM tree shapes, on stock db_bench.

For each shape (keys, level multiplier, L0 compaction trigger, dynamic
level bytes on or off, workload) and each filter (sstfilter.bloom, .cuckoo,
.fuse at --bits bits/key), db_bench builds one tree under
allocation=monkey, with the LevelListener in the OPTIONS file:

  fillrandom        fillrandom,flush,waitforcompaction of --keys keys
  fillseq+overwrite fillseq of the keys, then, reopened, overwrite of half
                    as many random ones, flush, waitforcompaction

Reopened with automatic compaction off, it is measured: readmissing
(--reads absent keys inside the key range, so every run is probed) with
statistics, rocksdb.sstables for each file's level, and sst_dump for each
file's keys and filter bytes. Then sstfilter_migrate --all rewrites every
SST in place under allocation=uniform, and the same tree is measured again.

Per tree it prints the non-empty levels (L0 as its file count), the filter
memory of monkey over uniform, their false positives per 1000 absent
lookups and the ratio, and two of tree_model's figures
(tools/bench/tree_model), each run weighted by the share of lookups its
files' key ranges take: the floor, the least false positives any split of
uniform's bytes can expect, over uniform's; and monkey's expected false
positives over the least for the same tree and bytes. A summary checks the targets: median
false-positive ratio at most 0.6x on trees of 4 or more levels, none above
1.0x, every tree within 1.15x of the model's optimum, memory 1.00-1.01x.

    tools/scripts/shape_sweep.sh [--rocksdb 9.7.4] [--shapes quick]
"""

import argparse
import concurrent.futures
import itertools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from db_bench_checks import parse_bench, sst_files
from db_bench_multilevel import file_number, parse_fill

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KEY_SIZE, VALUE_SIZE, FILL_SEED, READ_SEED = 16, 100, 1, 100
FILTERS = ["bloom", "cuckoo", "fuse"]

# (keys, multiplier, L0 trigger, dynamic level bytes, workload). The full
# grid at 1M keys, the corners at 3M, two shapes at 10M.
def shapes(name):
    grid = [(1_000_000, m, t, d, w) for m, t, d, w in itertools.product(
        (4, 10), (2, 8), (True, False), ("fillrandom", "fillseq+overwrite"))]
    corners = [(3_000_000, 6, 4, d, w) for d in (True, False)
               for w in ("fillrandom", "fillseq+overwrite")]
    big = [(10_000_000, 10, 4, True, "fillrandom"), (10_000_000, 4, 8, False, "fillrandom")]
    if name == "full":
        return grid + corners + big
    if name == "grid":
        return grid
    if name == "half":  # the grid with one L0 trigger per multiplier, one 3M shape
        return [s for s in grid if s[2] == (2 if s[1] == 4 else 8)] + corners[:1]
    if name == "medium":
        return [s for s in grid if s[3] or s[4] == "fillrandom"] + corners[:2] + big[:1]
    if name == "quick":
        return [(1_000_000, 10, 4, True, "fillrandom"), (1_000_000, 4, 2, False, "fillseq+overwrite")]
    m = re.fullmatch(r"(\d+)M,(\d+),(\d+),(on|off),(fillrandom|fillseq\+overwrite)", name)
    if m:  # one shape, e.g. "1M,4,2,off,fillrandom"
        return [(int(m[1]) * 1_000_000, int(m[2]), int(m[3]), m[4] == "on", m[5])]
    sys.exit(f"error: no shape set {name!r} (full, grid, half, medium, quick, or one shape as KEYS,MULTIPLIER,TRIGGER,on|off,WORKLOAD, e.g. 1M,4,2,off,fillrandom)")


OPTIONS = """\
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  listeners={{sstfilter.LevelListener}}
  max_open_files=-1
  max_background_jobs=2
[CFOptions "default"]
  compression=kSnappyCompression
  write_buffer_size=524288
  target_file_size_base=1048576
  max_bytes_for_level_base=1048576
  max_bytes_for_level_multiplier={multiplier}
  level_compaction_dynamic_level_bytes={dynamic}
  level0_file_num_compaction_trigger={trigger}
  disable_auto_compactions={no_compactions}
  num_levels=7
[TableOptions/BlockBasedTable "default"]
  filter_policy={{id=sstfilter.{filter};bits_per_key={bits};allocation={allocation}}}
  whole_key_filtering=true
  format_version=5
"""


def run(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n" +
                           "\n".join(p.stdout.splitlines()[-10:]))
    return p.stdout


def measure(args, env, db, keys, read_options, tag):
    """The tree's files (level, keys, filter bytes) and readmissing's false
    positives per lookup, automatic compaction off."""
    out = run([args.db_bench, f"-options_file={read_options}", f"-db={db}", f"-num={keys}",
               f"-key_size={KEY_SIZE}", f"-value_size={VALUE_SIZE}", "-bloom_bits=0",
               "-benchmarks=readmissing,sstables", "-use_existing_db=true", "-statistics",
               f"-reads={args.reads}", f"-seed={READ_SEED}"], env)
    _, found, tickers = parse_bench(out, "readmissing")
    if found is None or found[0] != 0:
        raise RuntimeError(f"{tag}: readmissing found keys that do not exist: {found}")
    _, levels = parse_fill(out)
    ranges = key_ranges(out)
    files = sst_files(args.sst_dump, db)
    per_level, l0, level_ranges = {}, [], {}
    for f in files:
        number = file_number(f["file"])
        level = levels.get(number)
        if level is None or number not in ranges:
            raise RuntimeError(f"{tag}: {f['file']} is not in rocksdb.sstables")
        if not f["filter_size"] or not (f["policy"] or "").startswith("sstfilter."):
            raise RuntimeError(f"{tag}: {f['file']} has no sstfilter filter ({f['policy']})")
        file_range = (*ranges[number], f["entries"])
        if level == 0:
            l0.append((f["entries"], f["filter_size"], file_range))
        n, k, b = per_level.get(level, (0, 0, 0))
        per_level[level] = (n + 1, k + f["entries"], b + f["filter_size"])
        level_ranges.setdefault(level, []).append(file_range)
    fps = tickers.get("bloom.filter.full.positive", 0) - tickers.get(
        "bloom.filter.full.true.positive", 0)
    return dict(per_level=per_level, l0=l0, ranges=level_ranges, fps=fps / args.reads,
                bytes=sum(b for _, _, b in per_level.values()),
                keys=sum(k for _, k, _ in per_level.values()))


def key_ranges(out):
    """{file number: (smallest, largest user key in hex)} from rocksdb.sstables,
    which prints each file's internal keys as 'HEX' seq:N, type:N."""
    found = {}
    for m in re.finditer(r"^\s*(\d+):\d+\[[^\]]*\]\['([0-9A-Fa-f]*)' seq:\d+, type:\d+ \.\. "
                         r"'([0-9A-Fa-f]*)' seq:", out, re.M):
        found[int(m.group(1))] = (m.group(2), m.group(3))
    return found


def build(args, env, work, shape, filt):
    """One tree, built by db_bench under allocation=monkey, measured; then
    every SST rewritten in place under allocation=uniform (sstfilter_migrate
    --all), measured again: both on exactly the same files and levels."""
    keys, multiplier, trigger, dynamic, workload = shape
    tag = f"{keys}_{multiplier}_{trigger}_{int(dynamic)}_{workload}_{filt}"
    db = os.path.join(work, tag)
    paths = {}
    for allocation in ("monkey", "uniform"):
        for phase, off in (("fill", "false"), ("read", "true")):
            paths[allocation, phase] = os.path.join(work, f"{tag}.{allocation}.{phase}.ini")
            with open(paths[allocation, phase], "w") as f:
                f.write(OPTIONS.format(multiplier=multiplier, dynamic=str(dynamic).lower(),
                                       trigger=trigger, no_compactions=off, filter=filt,
                                       bits=args.bits, allocation=allocation))

    def fill(*extra):
        run([args.db_bench, f"-options_file={paths['monkey', 'fill']}", f"-db={db}",
             f"-num={keys}", f"-key_size={KEY_SIZE}", f"-value_size={VALUE_SIZE}",
             "-bloom_bits=0", f"-seed={FILL_SEED}"] + list(extra), env)

    # Each run ends with a flush: a memtable left for the next open to
    # replay would be flushed there, before any listener has seen the tree.
    if workload == "fillrandom":
        fill("-benchmarks=fillrandom,flush,waitforcompaction")
    else:
        fill("-benchmarks=fillseq,flush,waitforcompaction")
        fill("-benchmarks=overwrite,flush,waitforcompaction", "-use_existing_db=true",
             f"-writes={keys // 2}")
    monkey = measure(args, env, db, keys, paths["monkey", "read"], tag)
    run([args.migrate, db, paths["uniform", "read"], "--all"], env)
    uniform = measure(args, env, db, keys, paths["uniform", "read"], tag)
    if not args.keep:
        shutil.rmtree(db, ignore_errors=True)
    if {lv: n for lv, (n, _, _) in monkey["per_level"].items()} != \
            {lv: n for lv, (n, _, _) in uniform["per_level"].items()}:
        raise RuntimeError(f"{tag}: the rewrite changed the tree")
    return monkey, uniform


def model(args, filt, tree):
    lines = [f"budget {filt} {args.bits}"]
    for k, b, (lo, hi, n) in tree["l0"]:
        lines += [f"run {k} 1 {b}", f"range {lo} {hi} {n}"]
    for lv, (n, k, b) in sorted(tree["per_level"].items()):
        if lv > 0:
            lines.append(f"run {k} {n} {b}")
            lines += [f"range {lo} {hi} {e}" for lo, hi, e in tree["ranges"][lv]]
    out = subprocess.run([args.tree_model], input="\n".join(lines) + "\n", text=True,
                         stdout=subprocess.PIPE, check=True).stdout
    if args.verbose:
        print("\n".join(lines) + "\n" + out, file=sys.stderr)
    first = out.splitlines()[0]
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.e+-]+)", first)}


def levels_cell(tree):
    pl = tree["per_level"]
    parts = [f"L0×{pl[0][0]}"] if 0 in pl else []
    deeper = sorted(lv for lv in pl if lv > 0)
    if deeper:
        parts.append(f"L{deeper[0]}-L{deeper[-1]}" if len(deeper) > 1 else f"L{deeper[0]}")
    return " ".join(parts), len(pl)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="full", help="full (26 shapes), grid (the 16 at 1M keys), half (9), medium, quick")
    ap.add_argument("--filters", default=",".join(FILTERS))
    ap.add_argument("--bits", default="10")
    ap.add_argument("--reads", type=int, default=1_000_000)
    ap.add_argument("--jobs", type=int, default=2, help="trees built at once")
    ap.add_argument("--db-bench", default="db_bench")
    ap.add_argument("--sst-dump", default="sst_dump")
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "libsstfilter.so"),
                    help="LD_PRELOADed into db_bench ('' where it is built in)")
    ap.add_argument("--tree-model", default=os.path.join(ROOT, "build", "tools", "tree_model"))
    ap.add_argument("--migrate", default=os.path.join(ROOT, "build", "tools", "sstfilter_migrate"),
                    help="sstfilter_migrate, built against the same RocksDB as db_bench")
    ap.add_argument("--work-dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true", help="print tree_model's runs")
    ap.add_argument("--markdown-out")
    args = ap.parse_args()
    for tool in ("db_bench", "sst_dump", "tree_model", "migrate"):
        path = shutil.which(getattr(args, tool))
        if not path:
            sys.exit(f"error: {tool} not found ({getattr(args, tool)})")
        setattr(args, tool, path)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if args.plugin:
        env["LD_PRELOAD"] = os.path.abspath(args.plugin)
    version = run([args.db_bench, "--version"], env).strip()
    work = tempfile.mkdtemp(prefix="shape_sweep.", dir=args.work_dir)
    jobs = [(s, f) for s in shapes(args.shapes) for f in args.filters.split(",")]
    trees, failed = {}, []
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(build, args, env, work, *j): j for j in jobs}
            for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                j = futures[fut]
                try:
                    trees[j] = fut.result()
                    m, u = trees[j]
                    print(f"[{done}/{len(jobs)}] {j}: {levels_cell(m)[0]}, FPs/1k "
                          f"{1000 * u['fps']:.2f} uniform, {1000 * m['fps']:.2f} monkey",
                          file=sys.stderr, flush=True)
                except (RuntimeError, subprocess.CalledProcessError) as e:
                    failed.append(j)
                    print(f"[{done}/{len(jobs)}] {j}: FAILED {e}", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    head = ["workload", "keys", "mult", "L0 trig", "dyn", "filter", "levels",
            "memory ×u", "FPs/1k uniform", "FPs/1k monkey", "FPs ×u", "floor ×u", "model ×opt"]
    rows = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * 4 + "---|---|" + "---:|" * 6]
    fp_ratios, deep_ratios, deep_floors, opt_ratios, mem_ratios = [], [], [], [], []
    checks = {"uniform": [], "monkey": []}  # measured false positives over the model's
    for s, f in jobs:
        m, u = trees.get((s, f), (None, None))
        keys, mult, trig, dyn, workload = s
        cells = [workload, f"{keys / 1e6:g}M", str(mult), str(trig), "on" if dyn else "off", f]
        if u is None or m is None:
            rows.append("| " + " | ".join(cells) + " | **FAILED** |" + " |" * 6)
            continue
        mm = model(args, f, m)
        mem = (m["bytes"] / m["keys"]) / (u["bytes"] / u["keys"])
        fpr = m["fps"] / u["fps"] if u["fps"] else float("nan")
        opt = mm["actual"] / mm["optimum"]
        floor = mm["best"] / mm["uniform"]
        if mm["uniform"] > 0 and mm["actual"] > 0:
            checks["uniform"].append(u["fps"] / mm["uniform"])
            checks["monkey"].append(m["fps"] / mm["actual"])
        cell, depth = levels_cell(m)
        fp_ratios.append(fpr)
        opt_ratios.append(opt)
        mem_ratios.append(mem)
        if depth >= 4:
            deep_ratios.append(fpr)
            deep_floors.append(floor)
        cells += [cell, f"{mem:.3f}", f"{1000 * u['fps']:.2f}", f"{1000 * m['fps']:.2f}",
                  f"{fpr:.2f}", f"{floor:.2f}", f"{opt:.3f}"]
        rows.append("| " + " | ".join(cells) + " |")

    def verdict(ok):
        return "holds" if ok else "**MISSED**"

    summary = []
    if fp_ratios:
        med = statistics.median(deep_ratios) if deep_ratios else float("nan")
        summary = [
            f"- Trees of 4 or more levels (L0 counted where it has files): {len(deep_ratios)} "
            f"of {len(fp_ratios)}; median false positives {med:.2f}x uniform's "
            f"(target at most 0.6x: {verdict(bool(deep_ratios) and med <= 0.6)}); the model's "
            f"floor at uniform's memory on the same trees, median "
            f"{statistics.median(deep_floors) if deep_floors else float('nan'):.2f}x.",
            f"- Worst tree: {max(fp_ratios):.2f}x uniform's (target at most 1.0x: "
            f"{verdict(max(fp_ratios) <= 1.0)}).",
            f"- Model: expected false positives of monkey's filters over the optimum for its "
            f"tree and bytes, at most {max(opt_ratios):.3f} (target at most 1.15: "
            f"{verdict(max(opt_ratios) <= 1.15)}).",
            "- The model itself: measured false positives over tree_model's expectation for "
            "the same files, median (range): uniform "
            f"{statistics.median(checks['uniform']):.2f} ({min(checks['uniform']):.2f}-"
            f"{max(checks['uniform']):.2f}), monkey {statistics.median(checks['monkey']):.2f} "
            f"({min(checks['monkey']):.2f}-{max(checks['monkey']):.2f}).",
            f"- Memory, monkey over uniform: {min(mem_ratios):.3f}-{max(mem_ratios):.3f} "
            f"(target 1.00-1.01: {verdict(min(mem_ratios) >= 1 and max(mem_ratios) <= 1.01)}).",
        ]
    legend = (
        f"Workload: {KEY_SIZE}-byte keys, {VALUE_SIZE}-byte values, seed {FILL_SEED}; "
        "512 KiB write buffer, 1 MiB files and L1 (max_bytes_for_level_base), Snappy, "
        "num_levels 7, the LevelListener in the OPTIONS file. Each tree is built once, by "
        "db_bench under allocation=monkey, and measured; then every SST is rewritten in "
        "place under allocation=uniform (`sstfilter_migrate --all`) and measured again: "
        "both on the same files and levels. Measured: readmissing of "
        f"{args.reads:,} absent keys, automatic compaction off. *levels*: the non-empty "
        "levels, L0 as its file count; *memory ×u*: filter bytes (sst_dump) of monkey's "
        "filters over uniform's; *FPs/1k*: `bloom.filter.full.positive` - "
        "`bloom.filter.full.true.positive` per 1000 lookups; *floor ×u*: tree_model's least "
        "expected false positives of any split of uniform's bytes among the tree's runs, over "
        "uniform's (what any level-aware allocation can reach at equal memory); *model ×opt*: tree_model's "
        "expected false positives of monkey's filters over the least any split of the "
        "same bytes among the tree's runs can expect (1.000 is optimal).")
    text = "\n".join(rows + [""] + summary + ["", legend, "", f"db_bench: {version}"] +
                     ([f"FAILED: {failed}"] if failed else [])) + "\n"
    print(text)
    if args.markdown_out:
        with open(args.markdown_out, "w") as f:
            f.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
