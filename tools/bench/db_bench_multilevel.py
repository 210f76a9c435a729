"""The multi-level mode of tools/bench/db_bench_compare.py (--multilevel).

Configs come from db_bench_configs/multilevel/, whose OPTIONS leave data in
several levels after fillrandom alone (no manual compaction). The fill is one
db_bench run (one process, as a live DB's policy sees every file):
fillrandom, flush and waitforcompaction. How many L0 files that leaves (0 to 3,
under the trigger of 4) depends on compaction timing, and each is one more
filter a lookup probes, so `compact0` then moves them into the base level
(and waitforcompaction lets any compaction that starts finish): every config
reads the same number of runs. Then `updaterandom` of L0_WRITES random keys
over the whole key range and a flush: exactly three L0 files, under the L0
compaction trigger (and no WAL is replayed into a new L0 file when the reads
reopen the DB). It ends printing rocksdb.levelstats and rocksdb.sstables, from
which each SST's level is known. The table then shows, per config, filter
memory in all and per level, and what the filters save lookups of absent keys,
as ratios to the built-in Bloom filter and, for allocation=monkey configs, to
the same filter with allocation=uniform.
"""

import re
import statistics

import db_bench_report as report

FILL_BENCHMARKS = ("fillrandom,flush,waitforcompaction,compact0,waitforcompaction,"
                   "updaterandom,flush,levelstats,sstables")
# About 2.5 write buffers (256 KiB) of 16+100-byte entries: two flushes when
# the memtable fills, one at the end. (updaterandom does -reads of them.)
L0_WRITES = 4500
READS = [("readrandom", []), ("readmissing", [])]
FAMILIES = ["builtin_bloom", "builtin_bloom_ofh", "sstfilter_cuckoo",
            "sstfilter_cuckoo_monkey", "sstfilter_bloom_monkey", "sstfilter_fuse",
            "sstfilter_fuse_monkey"]

LEGEND = """\
Columns: *filter bytes/key* is the sum of every SST's filter block over the
sum of their entries (`rocksdb.filter.size` and `rocksdb.num.entries` from
sst_dump); *bits/key by level* is the same per level, times 8, the level of each
SST from `rocksdb.sstables` after the fill; *files by level* counts SSTs (L0
first; every fill leaves the same three L0 files, each one more filter a
lookup probes); *filter FPs/1k miss* is the filters' false positives per
1000 readmissing lookups (`bloom.filter.full.positive` -
`bloom.filter.full.true.positive`), i.e. 1000 x the sum of the FPRs of every
filter a lookup probes (one per L0 file, one per deeper level); *data reads/1k
miss* is `rocksdb.block.cache.data.miss` per 1000 readmissing lookups: the
false positives the small block cache did not absorb (it holds more of the
small upper levels' blocks than of the bottom's); ops/s are medians over the
repeats. (×b) is the ratio to the built-in Bloom filter at the same bits/key,
(×u) to the same sstfilter filter with allocation=uniform; for ops/s, the
median of the per-repeat ratios. Lower is better for memory and reads, higher
for ops/s."""


def workload(num, l0_writes, key_size, value_size, seed):
    return (f"Workload: `fillrandom,flush,waitforcompaction` of {num:,} random keys "
            f"({key_size}-byte keys, {value_size}-byte values, seed {seed}), no manual "
            f"compaction during the fill; then, in the same process, "
            f"`compact0,waitforcompaction` (the L0 files the fill left, 0 to 3 by "
            f"compaction timing, into the base level) and `updaterandom,flush` of "
            f"{l0_writes:,} random keys over the same range: three L0 files")


def parse_fill(out):
    """(levelstats text, {file number: level}) from the fill's output."""
    m = re.search(r"^Level Files Size\(MB\)\n-+\n((?:\s*\d+\s+\d+\s+\d+\n)+)", out, re.M)
    levelstats = m.group(1).rstrip() if m else ""
    levels, level = {}, None
    for line in out.splitlines():
        head = re.match(r"^--- level (\d+) ---", line)
        if head:
            level = int(head.group(1))
            continue
        f = re.match(r"^\s*(\d+):\d+\[", line)
        if f and level is not None:
            levels[int(f.group(1))] = level
    return levelstats, levels


def file_number(name):
    m = re.match(r"0*(\d+)\.sst$", name)
    return int(m.group(1)) if m else None


def ofh(cfg):
    with open(cfg.path) as f:
        return re.search(r"^\s*optimize_filters_for_hits\s*=\s*true\s*$", f.read(), re.M) is not None


def unfiltered_ok(cfg):
    """With optimize_filters_for_hits, the bottom level's SSTs have no filter."""
    if not ofh(cfg):
        return lambda f: False
    bottom = max(cfg.file_levels.values(), default=None)
    return lambda f: cfg.file_levels.get(file_number(f["file"])) == bottom


def by_level(cfg):
    """{level: (files, entries, filter bytes)} over the SSTs sst_dump saw."""
    out = {}
    for f in cfg.sst["per_file"]:
        level = cfg.file_levels.get(file_number(f["file"]))
        files, entries, size = out.get(level, (0, 0, 0))
        out[level] = (files + 1, entries + f["entries"], size + f["filter_size"])
    return out


def uniform_of(cfg):
    """sstfilter_cuckoo_monkey_10 -> sstfilter_cuckoo_10."""
    return cfg.name.replace("_monkey_", "_") if "_monkey_" in cfg.name else None


def _ratio(value, base):
    return f" (×{value / base:.2f})" if base else ""


def _paired(mine, base):
    if not mine or len(mine) != len(base) or not all(base):
        return None
    return statistics.median(m / b for m, b in zip(mine, base))


def fps_cell(value, refs):
    text = f"{value:.1f}"
    for tag, r in refs:
        if r.metrics_fps:
            text += f" (×{value / r.metrics_fps:.2f}{tag})"
    return text


def table(configs):
    by_name = {c.name: c for c in configs}
    head = ["config", "filter bytes/key", "bits/key by level", "files by level",
            "filter FPs/1k miss", "data reads/1k miss"] + [f"{b} ops/s" for b, _ in READS]
    rows = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for c in configs:
        mine = c.metrics()
        if mine is None:
            rows.append(report.refused_row(c, len(head)))
            continue
        refs = [("b", by_name.get(c.baseline)), ("u", by_name.get(uniform_of(c) or ""))]
        refs = [(tag, r) for tag, r in refs if r is not None and r.metrics() is not None]

        def cell(key, fmt, paired_bench=None):
            text = fmt(mine[key])
            for tag, r in refs:
                if paired_bench:
                    q = _paired(c.ops[paired_bench], r.ops[paired_bench])
                else:
                    q = mine[key] / r.metrics()[key] if r.metrics()[key] else None
                if q is not None:
                    text += f" (×{q:.2f}{tag})"
            return text

        levels = by_level(c)
        bits = " · ".join(f"L{lv} {8 * size / max(n, 1):.1f}" for lv, (_, n, size)
                          in sorted(levels.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))
        files = "/".join(str(levels[lv][0]) for lv in sorted(k for k in levels if k is not None))
        m = c.missing
        mine["fps_per_1k"] = 1000.0 * (m["positive"] - m["true_positive"]) / max(m["lookups"], 1)
        for _, r in refs:
            rm = r.missing
            r.metrics_fps = 1000.0 * (rm["positive"] - rm["true_positive"]) / max(rm["lookups"], 1)
        cells = [c.name, cell("bytes_per_key", lambda v: f"{v:.3f}"), bits, files,
                 fps_cell(mine["fps_per_1k"], refs),
                 cell("reads_per_1k", lambda v: f"{v:.1f}")]
        cells += [cell(b, lambda v: f"{v:,.0f}", paired_bench=b) for b, _ in READS]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def levelstats_block(configs):
    """rocksdb.levelstats after each config's fill, side by side."""
    shown = [c for c in configs if getattr(c, "levelstats", "")]
    if not shown:
        return []
    lines = ["rocksdb.levelstats after the fill (level: files, MB):", ""]
    for c in shown:
        cells = []
        for row in c.levelstats.splitlines():
            lv, files, mb = row.split()
            if files != "0":
                cells.append(f"L{lv} {files} files {mb} MB")
        lines.append(f"- {c.name}: " + ", ".join(cells))
    return lines
