"""Checks that a db_bench run really used the filter it was configured with,
and reads what db_bench prints.

Used by tools/bench/db_bench_compare.py: RocksDB runs with no filter, silently,
when an OPTIONS file names a policy nobody registered, so the runner takes
nothing on trust.
"""

import os
import re
import subprocess
import sys
import tempfile


def read_policy_id(path):
    """The id in a file's filter_policy= line: 'bloomfilter:10:false' ->
    'bloomfilter', '{id=sstfilter.cuckoo;...}' -> 'sstfilter.cuckoo'; None for
    nullptr. RocksDB records the same id as the SSTs' filter policy name."""
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*filter_policy\s*=\s*(.*?)\s*$", line)
            if m:
                value = m.group(1)
                if value in ("", "nullptr"):
                    return None
                braced = re.search(r"\bid=([^;}]+)", value)
                return braced.group(1) if braced else value.split(":")[0]
    return None


def sst_files(sst_dump, db):
    """Per-SST properties, as sst_dump --show_properties prints them."""
    out = subprocess.run([sst_dump, f"--file={db}", "--show_properties"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True).stdout
    files = []
    for chunk in re.split(r"^Process ", out, flags=re.M)[1:]:
        def prop(name):
            m = re.search(rf"^\s*{re.escape(name)}: (.*?)\s*$", chunk, re.M)
            return m.group(1) if m else None
        files.append(dict(file=os.path.basename(chunk.split("\n", 1)[0].strip()),
                          entries=int(prop("# entries") or 0),
                          filter_size=int(prop("filter block size") or 0),
                          policy=prop("filter policy name"),
                          compression=prop("SST file compression algo")))
    return files


def latest_options(db):
    names = [n for n in os.listdir(db) if re.match(r"OPTIONS-\d+$", n)]
    if not names:
        return ""
    with open(os.path.join(db, max(names, key=lambda n: int(n[8:])))) as f:
        return f.read()


def check_filter_written(cfg, sst_dump, unfiltered_ok=None):
    """What is wrong with the SSTs the fill wrote; [] if the filter is in effect.
    unfiltered_ok(file) says whether an SST may have no filter at all (the
    bottom level's with optimize_filters_for_hits)."""
    files = sst_files(sst_dump, cfg.db)
    if not files:
        return [f"sst_dump found no SST in {cfg.db}"]
    cfg.sst = dict(files=len(files), entries=sum(f["entries"] for f in files),
                   filter_bytes=sum(f["filter_size"] for f in files),
                   policies=sorted({f["policy"] or "?" for f in files}),
                   per_file=files)
    p = []
    for f in files:
        if f["compression"] != "Snappy":
            p.append(f"{f['file']}: compression {f['compression']}, not Snappy")
        if cfg.policy is None and f["filter_size"] != 0:
            p.append(f"{f['file']}: has a {f['policy']} filter, but this config has none")
        elif unfiltered_ok and not f["filter_size"] and unfiltered_ok(f):
            continue
        elif cfg.policy is not None and (f["policy"] != cfg.policy or not f["filter_size"]):
            p.append(f"{f['file']}: filter policy '{f['policy']}' with "
                     f"{f['filter_size']} bytes; expected '{cfg.policy}'")
    opts = latest_options(cfg.db)
    if not re.search(r"^\s*use_direct_reads=true\s*$", opts, re.M):
        p.append("the DB's OPTIONS file does not say use_direct_reads=true")
    if cfg.policy and re.search(r"^\s*filter_policy=nullptr\s*$", opts, re.M):
        p.append("the DB's OPTIONS file says filter_policy=nullptr: the policy "
                 "was not registered (is libsstfilter.so preloaded?)")
    return p[:6]


def check_policy_loads(cfg, check_tool):
    """For sstfilter configs: sstfilter_check (sstfilter::CheckFilterPolicyInEffect)
    on the DB's own OPTIONS file, i.e. a reopen would get the policy too."""
    if not check_tool or not (cfg.policy or "").startswith("sstfilter."):
        return []
    out = subprocess.run([check_tool, cfg.db], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    return [] if out.returncode == 0 else [out.stdout.strip()]


def parse_bench(out, bench):
    m = re.search(rf"^{bench}\s*:\s*[\d.]+ micros/op (\d+) ops/sec.*?"
                  r"(?:\((\d+) of (\d+) found\))?\s*$", out, re.M)
    if not m:
        raise RuntimeError(f"no '{bench}' result line in db_bench's output")
    found = (int(m.group(2)), int(m.group(3))) if m.group(2) else None
    tickers = {k: int(v) for k, v in
               re.findall(r"^rocksdb\.([\w.]+) COUNT : (\d+)\s*$", out, re.M)}
    return int(m.group(1)), found, tickers


def check_direct_io(directory):
    with tempfile.NamedTemporaryFile(dir=directory) as f:
        f.write(b"\0" * 4096)
        f.flush()
        try:
            os.close(os.open(f.name, os.O_RDONLY | os.O_DIRECT))
        except OSError as e:
            sys.exit(f"error: {directory} does not support O_DIRECT ({e}), which "
                     "the configs' direct reads need: pick another --work-dir")
