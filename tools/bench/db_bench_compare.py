#!/usr/bin/env python3
"""Compare filter policies on stock RocksDB db_bench, one OPTIONS file each.

Every config in db_bench_configs/ (or --configs) gets the same workload:
  1. fillrandom,compact                      (one db_bench run, fixed seed)
  2. readrandom, readmissing, multireadrandom -multiread_batched
     -batch_size=32                          (-use_existing_db -statistics)
Each read benchmark is repeated (--reps) with the configs interleaved, every
other repeat in reverse order, so machine drift hits all alike; ops/sec are
medians, counters are pooled.

A config is reported only if its filter was demonstrably in effect: every SST
names the expected policy and holds a filter block, the DB's own OPTIONS file
names it too, and readmissing had the filter reject keys. RocksDB loads an
OPTIONS file naming an unregistered policy without complaint and runs with no
filter, so none of this is taken on trust. Every config must also find exactly
as many keys as the others (same seeds): a filter must never hide a key.

With --multilevel (db_bench_configs/multilevel/, tools/bench/db_bench_multilevel.py)
fillrandom builds L0 and three more levels without a manual compaction, the
runner folds the L0 files it left into the base level (compact0) and writes
three new ones, and the table shows filter memory per level and reads per
missing lookup instead.

Output: a markdown table on stdout (and --markdown-out), progress on stderr.
Exit status 0 only if every config was reported.
"""

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import db_bench_multilevel as multilevel
import db_bench_report as report
from db_bench_checks import (check_direct_io, check_filter_written, check_policy_loads,
                             parse_bench, read_policy_id)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The workload at --scale 1; --scale multiplies all of it. Sized so the
# default run over all 11 configs takes under 5 minutes on 2 cores.
BASE_NUM = 400_000        # keys written by fillrandom (about 63% distinct)
BASE_READS = 15_000       # readrandom and multireadrandom lookups per run
BASE_MISSING = 300_000    # readmissing lookups per run: enough false positives
                          # at 16 bits/key for a steady FPR
NO_FILTER_SHARE = 20      # configs without a filter do 1/20 of those: each
                          # lookup is a device read, and the rate is all it shows
BASE_CACHE = 1 << 20      # block cache bytes: a few % of the data blocks
KEY_SIZE, VALUE_SIZE = 16, 100
FILL_SEED, READ_SEED = 1, 100

READS = [  # (benchmark, extra db_bench flags)
    ("readrandom", []),
    ("readmissing", []),
    ("multireadrandom", ["-multiread_batched=true", "-batch_size=32"]),
]

# Table order within one bits/key group.
FAMILIES = ["builtin_bloom", "builtin_ribbon", "builtin_ribbonmem", "sstfilter_bloom", "sstfilter_cuckoo",
            "sstfilter_fuse", "sstfilter_burr"]

def log(msg):
    print(msg, file=sys.stderr, flush=True)


def shout(msg):
    bar = "!" * 78
    log(f"\n{bar}\n{msg}\n{bar}\n")


class Config:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.policy = read_policy_id(path)      # None: no filter expected
        m = re.search(r"_(\d+)$", name)
        self.bits = int(m.group(1)) if m else None
        self.family = name[: m.start()] if m else name
        self.problems = []                      # any: the config is not reported
        self.db = None
        self.file_levels = {}                   # --multilevel: SST number -> level
        self.levelstats = ""
        self.sst = None                         # totals from sst_dump
        self.ops = {bench: [] for bench, _ in READS}
        self.found = {}                         # (bench, rep) -> (found, of)
        self.missing = dict(lookups=0, useful=0, positive=0, true_positive=0,
                            data_miss=0)        # pooled over readmissing runs

    @property
    def baseline(self):
        if self.bits is None or self.family == "builtin_bloom":
            return None
        return f"builtin_bloom_{self.bits}"

    def sort_key(self):
        fam = FAMILIES.index(self.family) if self.family in FAMILIES else len(FAMILIES)
        return (self.bits is not None, self.bits or 0, fam, self.name)

    def refuse(self, *problems):
        self.problems += problems
        shout(f"REFUSING TO REPORT {self.name}:\n"
              + "\n".join("  - " + p for p in problems))

    def metrics(self):
        """The table's figures, or None if the config is not reported."""
        if self.problems:
            return None
        m = self.missing
        fp = m["positive"] - m["true_positive"]
        return dict(
            bytes_per_key=self.sst["filter_bytes"] / max(self.sst["entries"], 1),
            fpr=fp / (fp + m["useful"]) if self.policy and fp + m["useful"] else None,
            reads_per_1k=1000.0 * m["data_miss"] / max(m["lookups"], 1),
            **{b: statistics.median(self.ops[b]) for b, _ in READS})


class Runner:
    def __init__(self, args, configs, env):
        self.args, self.configs, self.env = args, configs, env
        s = args.scale
        self.num, self.reads = int(BASE_NUM * s), int(BASE_READS * s)
        self.missing, self.cache = int(BASE_MISSING * s), int(BASE_CACHE * s)
        self.commands = {}          # (config, step) -> argv, for the footer
        self.steps = len(configs) * (1 + args.reps * len(READS))
        self.done, self.t0 = 0, time.monotonic()

    def db_bench(self, cfg, step, extra):
        cmd = [self.args.db_bench, f"-options_file={cfg.path}", f"-db={cfg.db}",
               f"-num={self.num}", f"-key_size={KEY_SIZE}", f"-value_size={VALUE_SIZE}",
               # db_bench fills a null policy from -bloom_bits when that is > 0:
               # 0 makes sure it never substitutes a filter of its own.
               "-bloom_bits=0"] + extra
        self.commands[(cfg.name, step)] = cmd
        if self.args.verbose:
            log("  $ " + self.shell(cmd))
        start = time.monotonic()
        p = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            tail = "\n".join(p.stdout.splitlines()[-15:])
            raise RuntimeError(f"db_bench exited {p.returncode}: {self.shell(cmd)}\n{tail}")
        return p.stdout, time.monotonic() - start

    def shell(self, cmd):
        pre = f"LD_PRELOAD={shlex.quote(self.env['LD_PRELOAD'])} " if "LD_PRELOAD" in self.env else ""
        return pre + " ".join(shlex.quote(c) for c in cmd)

    def progress(self, cfg, what, result, steps=1):
        self.done += steps
        log(f"[{self.done:3}/{self.steps}] {time.monotonic() - self.t0:6.1f}s  "
            f"{cfg.name:20} {what:20} {result}")

    def fill(self, cfg):
        ml = self.args.multilevel
        try:
            out, secs = self.db_bench(cfg, "fill", [
                "-benchmarks=" + (multilevel.FILL_BENCHMARKS if ml else "fillrandom,compact"),
                f"-seed={FILL_SEED}"] + ([f"-reads={multilevel.L0_WRITES}"] if ml else []))
            if ml:
                cfg.levelstats, cfg.file_levels = multilevel.parse_fill(out)
                log(f"  {cfg.name} levels: " + " ".join(
                    f"L{lv}:{n}" for lv, n in sorted(
                        {lv: list(cfg.file_levels.values()).count(lv)
                         for lv in set(cfg.file_levels.values())}.items())))
            problems = check_filter_written(
                cfg, self.args.sst_dump, multilevel.unfiltered_ok(cfg) if ml else None)
            problems += check_policy_loads(cfg, self.args.check_tool)
        except RuntimeError as e:
            secs, problems = 0, [str(e)]
        if problems:
            self.progress(cfg, "fillrandom,compact", "FILTER NOT IN EFFECT",
                          1 + self.args.reps * len(READS))
            cfg.refuse(*problems)
        else:
            self.progress(cfg, "fillrandom,compact", f"{secs:4.1f}s  {cfg.sst['files']} "
                          f"SSTs, filter {'/'.join(cfg.sst['policies'])}")

    def read(self, cfg, bench, flags, rep):
        n = self.reads
        if bench == "readmissing":
            # Without a filter (or, --multilevel, with none in the bottom
            # level: optimize_filters_for_hits) each lookup is a device read.
            few = not cfg.policy or (self.args.multilevel and multilevel.ofh(cfg))
            n = self.missing // NO_FILTER_SHARE if few else self.missing
        try:
            out, secs = self.db_bench(cfg, f"{bench}#{rep}", [
                f"-benchmarks={bench}", "-use_existing_db=true", "-statistics",
                f"-cache_size={self.cache}", f"-reads={n}", f"-seed={READ_SEED + rep}"]
                + flags)
            ops, found, t = parse_bench(out, bench)
        except RuntimeError as e:
            self.progress(cfg, f"{bench} {rep + 1}/{self.args.reps}", "FAILED")
            cfg.refuse(str(e))
            return
        cfg.ops[bench].append(ops)
        cfg.found[(bench, rep)] = found
        self.progress(cfg, f"{bench} {rep + 1}/{self.args.reps}",
                      f"{ops:>9,} ops/s  {secs:4.1f}s"
                      + (f"  ({found[0]:,} of {found[1]:,} found)" if found else ""))
        if bench != "readmissing":
            return
        cfg.missing["lookups"] += n
        for key, ticker in [("useful", "bloom.filter.useful"),
                            ("positive", "bloom.filter.full.positive"),
                            ("true_positive", "bloom.filter.full.true.positive"),
                            ("data_miss", "block.cache.data.miss")]:
            cfg.missing[key] += t.get(ticker, 0)
        useful = t.get("bloom.filter.useful", 0)
        if cfg.policy and useful == 0:
            cfg.refuse("readmissing: rocksdb.bloom.filter.useful is 0, so no filter "
                       "rejected any key: the filter was not in effect")
        elif not cfg.policy and useful:
            cfg.refuse(f"readmissing: bloom.filter.useful={useful} in a config without a filter")
        if found is None or found[0] != 0:
            cfg.refuse(f"readmissing found keys that do not exist: {found}")

    def check_same_keys_found(self, bench, rep):
        """Same seed, same keys: every config must find the same number."""
        counts = {c.name: c.found[(bench, rep)] for c in self.configs
                  if not c.problems and (bench, rep) in c.found}
        if not counts:
            return
        ref_name = "no_filter" if "no_filter" in counts else max(counts, key=counts.get)
        ref = counts[ref_name]
        for c in self.configs:
            got = counts.get(c.name)
            if got is not None and got != ref:
                c.refuse(f"{bench} run {rep + 1} found {got[0]:,} of {got[1]:,} keys, "
                         f"{ref_name} {ref[0]:,} of {ref[1]:,}: a filter must never "
                         "hide a key")

    def run(self, work):
        a = self.args
        log(f"db_bench_compare: {len(self.configs)} configs, {self.num:,} keys, "
            f"{a.reps} runs of each read benchmark, block cache {self.cache:,} B, in "
            f"{work}, LD_PRELOAD={self.env.get('LD_PRELOAD', '(none)')}")
        for cfg in self.configs:
            cfg.db = os.path.join(work, cfg.name)
            self.fill(cfg)
        for rep in range(a.reps):
            # Every other repeat in reverse, so that neither config of a
            # compared pair always runs first (a drift within a repeat would
            # otherwise favour one of them in every paired ratio).
            order = self.configs if rep % 2 == 0 else self.configs[::-1]
            for bench, flags in READS:
                for cfg in order:
                    if not cfg.problems:
                        self.read(cfg, bench, flags, rep)
                if bench != "readmissing":  # there, nothing may be found at all
                    self.check_same_keys_found(bench, rep)


def footer(runner, version, wall):
    a, configs = runner.args, runner.configs
    reads = [bench for bench, _ in READS]
    first = next((c for c in configs if c.policy and not c.problems), configs[0])
    steps = ["fill"] + [f"{bench}#0" for bench, _ in READS]
    cmds = [runner.commands[(first.name, s)] for s in steps
            if (first.name, s) in runner.commands]
    lines = [
        "", multilevel.LEGEND if a.multilevel else report.LEGEND, "",
        (multilevel.workload(runner.num, multilevel.L0_WRITES, KEY_SIZE, VALUE_SIZE, FILL_SEED)
         if a.multilevel else
         f"Workload: `fillrandom,compact` of {runner.num:,} random keys ({KEY_SIZE}-byte "
         f"keys, {VALUE_SIZE}-byte values, seed {FILL_SEED})") +
        f"; then, {a.reps} times with "
        f"the configs interleaved (every other time in reverse), readrandom" +
        ("" if a.multilevel else " and multireadrandom (batches of 32)") +
        f" with {runner.reads:,} lookups and "
        f"readmissing with {runner.missing:,} "
        f"({runner.missing // NO_FILTER_SHARE:,} without a filter"
        + (" or with optimize_filters_for_hits" if a.multilevel else "") + "); "
        f"{runner.cache / 2**20:.3g} MiB block cache, direct reads; --scale {a.scale:g}.",
        f"Machine: {report.machine()}; {version}. " + report.build_note(a.db_bench),
        f"Run-to-run spread of ops/s, (max - min) / median, worst config: "
        f"{report.spread(configs, reads)}.",
        ""] + report.ratio_quartiles(configs, reads) + ["", f"Wall time: {wall:.0f} s.", "",
        f"Commands for {first.name} (other configs differ only in config file and DB, "
        "later runs only in -seed):", ""]
    return "\n".join(lines + ["    " + runner.shell(c) for c in cmds])


def select_configs(args):
    available = {n[:-4]: os.path.join(args.configs_dir, n)
                 for n in sorted(os.listdir(args.configs_dir)) if n.endswith(".ini")}
    names = args.configs.split(",") if args.configs else list(available)
    for n in names:
        if n not in available:
            sys.exit(f"error: no config {n!r} in {args.configs_dir} "
                     f"(have: {', '.join(available)})")
    configs = [Config(n, available[n]) for n in dict.fromkeys(names)]
    for c in list(configs):
        if c.baseline in available and c.baseline not in [x.name for x in configs]:
            log(f"adding {c.baseline}: the baseline for {c.name}")
            configs.append(Config(c.baseline, available[c.baseline]))
    return sorted(configs, key=Config.sort_key)


def main():
    global READS, FAMILIES  # --multilevel swaps them
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=report.LEGEND)
    ap.add_argument("--configs", help="comma-separated config names (default: every "
                    ".ini in --configs-dir); their built-in Bloom baselines are added")
    ap.add_argument("--configs-dir", default=os.path.join(ROOT, "db_bench_configs"))
    ap.add_argument("--scale", type=float, default=1.0, help="multiply keys, lookups "
                    f"and block cache (default 1: {BASE_NUM:,} keys)")
    ap.add_argument("--reps", type=int, default=5,
                    help="runs of each read benchmark (default 5)")
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "libsstfilter.so"),
                    help="the library to LD_PRELOAD ('' for none)")
    ap.add_argument("--db-bench", default="db_bench", help="default: from PATH")
    ap.add_argument("--sst-dump", default="sst_dump", help="default: from PATH")
    ap.add_argument("--check-tool",
                    default=os.path.join(ROOT, "build", "tools", "sstfilter_check"),
                    help="sstfilter_check, run on each sstfilter DB ('' to skip)")
    ap.add_argument("--work-dir", default=os.path.join(ROOT, "build"),
                    help="where the DBs go (a temporary directory inside); "
                    "needs O_DIRECT, so not tmpfs")
    ap.add_argument("--keep", action="store_true", help="keep the DBs")
    ap.add_argument("--markdown-out", metavar="FILE", help="also write the table here")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="print every db_bench command line as it runs")
    ap.add_argument("--multilevel", action="store_true",
                    help="the multi-level shape: configs from db_bench_configs/multilevel/, "
                    "fillrandom, then three L0 files, filter memory per level")
    args = ap.parse_args()
    if args.multilevel:
        READS, FAMILIES = multilevel.READS, multilevel.FAMILIES
        if args.configs_dir == os.path.join(ROOT, "db_bench_configs"):
            args.configs_dir = os.path.join(ROOT, "db_bench_configs", "multilevel")
    if args.scale <= 0 or args.reps < 1:
        sys.exit("error: --scale must be > 0 and --reps >= 1")

    configs = select_configs(args)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if args.plugin:
        env["LD_PRELOAD"] = os.path.abspath(args.plugin)
        if not os.path.exists(env["LD_PRELOAD"]):
            sys.exit(f"error: {env['LD_PRELOAD']} not found (build it: tools/scripts/setup.sh)")
    if args.check_tool and not os.path.exists(args.check_tool):
        sys.exit(f"error: {args.check_tool} not found (build it: tools/scripts/setup.sh)")
    for tool in ("db_bench", "sst_dump"):
        path = shutil.which(getattr(args, tool))
        if not path:
            sys.exit(f"error: {tool} not found (Debian package rocksdb-tools)")
        setattr(args, tool, path)
    version = subprocess.run([args.db_bench, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout.strip()

    os.makedirs(args.work_dir, exist_ok=True)
    check_direct_io(args.work_dir)
    work = tempfile.mkdtemp(prefix="db_bench_compare.", dir=args.work_dir)
    runner = Runner(args, configs, env)
    try:
        runner.run(work)
    finally:
        if args.keep:
            log(f"DBs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    wall = time.monotonic() - runner.t0
    if args.multilevel:
        text = (multilevel.table(configs) + "\n\n" +
                "\n".join(multilevel.levelstats_block(configs)) + "\n" +
                footer(runner, version, wall) + "\n")
    else:
        text = (report.table(configs, [bench for bench, _ in READS]) + "\n" +
                footer(runner, version, wall) + "\n")
    print(text)
    if args.markdown_out:
        with open(args.markdown_out, "w") as f:
            f.write(text)
    refused = [c.name for c in configs if c.problems]
    if refused:
        shout("NOT REPORTED (filter not in effect or wrong results): " + ", ".join(refused))
        return 1
    log(f"done in {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
