"""The comparison table of tools/bench/db_bench_compare.py and what goes
under it: ratios to each config's baseline, their spread, the machine.

`configs` are db_bench_compare.Config objects; `reads` the read
benchmarks' names, in the table's column order.
"""

import os
import platform
import re
import statistics

LEGEND = """\
Columns: *filter* is the policy name recorded in the SSTs' properties;
*bytes/key* is the sum of the SSTs' filter block sizes over their entries;
*FPR* is measured on readmissing: FP / (FP + `rocksdb.bloom.filter.useful`),
FP = `bloom.filter.full.positive` - `bloom.filter.full.true.positive`;
*data reads/1k miss* is `rocksdb.block.cache.data.miss` per 1000 readmissing
lookups: with direct reads, and filters and indexes held outside the block
cache, each one is a data block read from the device (a few false positives
hit the small cache instead); ops/s are medians over the repeats. (×r) is the
ratio to the built-in Bloom filter at the same bits/key (builtin_ribbon: at the
same FPR; builtin_ribbonmem: in the same memory); for ops/s, the median of the ratios within each repeat, where the two ran
seconds apart. Lower is better for bytes/key, FPR and reads, higher for ops/s."""



def machine():
    try:
        with open("/proc/cpuinfo") as f:
            cpu = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M).group(1)
    except (OSError, AttributeError):
        cpu = "unknown CPU"
    return f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}"


def spread(configs, reads):
    parts = []
    for bench in reads:
        worst = max(((max(c.ops[bench]) - min(c.ops[bench])) / statistics.median(c.ops[bench])
                     for c in configs if not c.problems and c.ops[bench]), default=0)
        parts.append(f"{bench} {100 * worst:.0f}%")
    return ", ".join(parts)


def cell(value, base, fmt, ratio=None):
    if value is None:
        return "—"
    if base is None:
        return fmt(value)
    if ratio is None:
        ratio = value / base if base else None
    return f"{fmt(value)} (×{ratio:.2f})" if ratio is not None else f"{fmt(value)} (—)"


def repeat_ratios(mine, base):
    """mine[i] / base[i] for every repeat i, or None if the runs do not pair
    up: run i of both came seconds apart, so drift in the machine's speed
    cancels out of each ratio."""
    if not mine or len(mine) != len(base) or not all(base):
        return None
    return [m / b for m, b in zip(mine, base)]


def paired_ratio(mine, base):
    """Median of the per-repeat ratios (see repeat_ratios)."""
    ratios = repeat_ratios(mine, base)
    return statistics.median(ratios) if ratios else None


def ratio_quartiles(configs, reads):
    """Rows of the 25th and 75th percentiles of each config's per-repeat
    ops/s ratios to its baseline (whose median the main table shows), so a
    reader can see whether a ratio is apart from 1.0 or within the noise."""
    by_name = {c.name: c for c in configs}
    rows = []
    for c in configs:
        base = by_name.get(c.baseline)
        if c.metrics() is None or base is None or base.metrics() is None:
            continue
        cells = []
        for bench in reads:
            ratios = repeat_ratios(c.ops[bench], base.ops[bench])
            if not ratios or len(ratios) < 2:
                cells.append("—")
                continue
            q1, _, q3 = statistics.quantiles(ratios, n=4)
            cells.append(f"{q1:.2f}-{q3:.2f}")
        rows.append(f"| {c.name} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    head = ["config"] + [bench for bench in reads]
    return (["Per-repeat ratios of ops/s to the baseline, 25th-75th percentile "
             "(the table above shows their median):", "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)] + rows)


def refused_row(c, columns):
    """The table row of a config that is not reported."""
    return (f"| {c.name} | **NOT REPORTED: filter not in effect or wrong "
            "results (see stderr)** |" + " |" * (columns - 2))


def table(configs, reads):
    by_name = {c.name: c for c in configs}
    head = ["config", "filter", "bytes/key", "FPR", "data reads/1k miss"] + \
           [f"{bench} ops/s" for bench in reads]
    rows = ["| " + " | ".join(head) + " |",
            "|---|---|" + "---:|" * (len(head) - 2)]
    for c in configs:
        mine = c.metrics()
        if mine is None:
            rows.append(refused_row(c, len(head)))
            continue
        base_cfg = by_name.get(c.baseline)
        b = (base_cfg.metrics() if base_cfg else None) or {}
        cells = [c.name, "/".join(c.sst["policies"]).replace("N/A", "none"),
                 cell(mine["bytes_per_key"], b.get("bytes_per_key"), lambda v: f"{v:.3f}"),
                 cell(mine["fpr"], b.get("fpr"), lambda v: f"{100 * v:.3f}%"),
                 cell(mine["reads_per_1k"], b.get("reads_per_1k"), lambda v: f"{v:.1f}")]
        cells += [cell(mine[bench], b.get(bench), lambda v: f"{v:,.0f}",
                       paired_ratio(c.ops[bench], base_cfg.ops[bench]) if b else None)
                  for bench in reads]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def build_note(db_bench):
    """What the reader should know about this db_bench's build."""
    if os.path.realpath(db_bench).startswith("/usr/"):
        return ("Debian's db_bench is built with assertions on: compare ratios, "
                "not absolute numbers.")
    return ("db_bench built from source by tools/scripts/rocksdb_source.sh (Release, no "
            "assertions), sstfilter in-tree.")
