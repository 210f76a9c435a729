#!/usr/bin/env bash
# RocksDB's own stress test over one filter policy, with crash recovery.
#
#   db_stress_test.sh <db_stress> <filter_policy> <seconds per round> <rounds>
#
# db_stress must have the policy registered (sstfilter built in-tree). Each
# round but the last runs concurrent reads, writes, deletes, range
# deletes, iterators, flushes and compactions, and is killed with SIGKILL
# mid-run. The next round reopens the DB and db_stress checks it against
# the expected state it keeps in --expected_values_dir ("Crash-recovery
# verification passed"). The last round ends on its own after a full
# verification. Fails on any verification failure, on a policy that did
# not take effect (the DB's OPTIONS file must name it), or on a filter that
# answered no lookup (rocksdb.bloom.filter.useful must be > 0).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 <db_stress> <filter_policy> <seconds per round> <rounds>" >&2
  exit 2
fi
DB_STRESS=$1 POLICY=$2 SECONDS_PER_ROUND=$3 ROUNDS=$4
fail() { echo "FAIL ($POLICY): $*" >&2; exit 1; }
ok() { echo "ok ($POLICY): $*"; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/db" "$TMP/expected"

# Small SSTs, so the run keeps many files and filters; snappy as in the
# db_bench configs. format_version 5 is what RocksDB 7.8.3 also reads.
cat >"$TMP/OPTIONS" <<EOF
[Version]
  rocksdb_version=9.7.4
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  max_background_jobs=2
[CFOptions "default"]
  write_buffer_size=1048576
  target_file_size_base=1048576
  max_bytes_for_level_base=4194304
  compression=kSnappyCompression
[TableOptions/BlockBasedTable "default"]
  filter_policy=$POLICY
  whole_key_filtering=true
  format_version=5
EOF

# -bloom_bits=-1: db_stress puts its own Bloom filter in place of a policy
# that loaded as null; with -1 it leaves null as null, so a missing plugin
# shows up as useful=0 instead of as the built-in filter.
COMMON=(-db="$TMP/db" -expected_values_dir="$TMP/expected"
        -options_file="$TMP/OPTIONS" -bloom_bits=-1 -statistics
        -destroy_db_initially=0 -column_families=1 -threads=4 -max_key=200000
        -reopen=0 -clear_column_family_one_in=0 -readpercent=45 -prefixpercent=0 -writepercent=35
        -delpercent=5 -delrangepercent=5 -iterpercent=10
        -flush_one_in=2000 -compact_range_one_in=5000 -verify_db_one_in=0
        # Injected I/O faults need a debug build's sync points; the crash
        # rounds are what this test is for.
        -read_fault_one_in=0)
# Later fault flags, off too where this db_stress has them (8.8 has not).
# Off where this db_stress has them: metadata faults (debug builds only),
# and the remote compaction workers newer db_stress starts by default
# (they refuse a DB with a WAL).
flags=$("$DB_STRESS" --help 2>&1 || true)
for flag in metadata_read_fault_one_in metadata_write_fault_one_in \
            remote_compaction_worker_threads; do
  if grep -q -- "-$flag " <<<"$flags"; then COMMON+=("-$flag=0"); fi
done

useful_total=0
for round in $(seq 1 "$ROUNDS"); do
  out=$TMP/round$round.log
  if [ "$round" -lt "$ROUNDS" ]; then
    # Runs until killed: far more operations than fit in the round. The
    # round's seconds count from db_stress's "Starting database operations"
    # (an event: a loaded machine delays it, and the wait with it), so the
    # kill always lands in the workload. stdbuf: the line must reach the
    # log when printed, not when the stdio buffer fills. `wait` returns once
    # the killed process is gone, so its LOCK is free for the next round.
    stdbuf -oL "$DB_STRESS" "${COMMON[@]}" -ops_per_thread=100000000 >"$out" 2>&1 &
    pid=$!
    until grep -q "Starting database operations" "$out"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        set +e; wait "$pid"; rc=$?; set -e
        grep -iE "error|fail|corrupt" "$out" >&2; tail -20 "$out" >&2
        fail "round $round exited $rc before it started operations"
      fi
      sleep 0.1
    done
    sleep "$SECONDS_PER_ROUND"
    kill -KILL "$pid" 2>/dev/null || true
    # (stderr: bash's own "Killed" job notice)
    set +e; { wait "$pid"; } 2>/dev/null; rc=$?; set -e
    [ "$rc" -eq 137 ] || { grep -iE "error|fail|corrupt" "$out" >&2; tail -20 "$out" >&2
                           fail "round $round exited $rc before it was killed"; }
  else
    # Sized to end within about one round, then verify everything.
    set +e
    "$DB_STRESS" "${COMMON[@]}" -ops_per_thread="${LAST_ROUND_OPS:-20000}" >"$out" 2>&1
    rc=$?
    set -e
    # db_stress's stderr is unbuffered and its stdout is not: an error
    # message sits above the stdout lines flushed at exit.
    [ "$rc" -eq 0 ] || { grep -iE "error|fail|corrupt" "$out" >&2; tail -20 "$out" >&2
                         df -h "$TMP" >&2; fail "last round exited $rc"; }
    grep -q "Verification successful" "$out" ||
      { tail -20 "$out" >&2; fail "last round did not report a successful verification"; }
  fi
  if grep -q "verification failed" "$out"; then
    grep -m5 -i "fail\|error" "$out" >&2
    fail "round $round: verification failed"
  fi
  if [ "$round" -gt 1 ]; then
    grep -q "Crash-recovery verification passed" "$out" ||
      { tail -20 "$out" >&2; fail "round $round: no crash-recovery verification"; }
  fi
  useful=$(awk '$1 == "rocksdb.bloom.filter.useful" && $2 == "COUNT" { print $4 }' "$out")
  ok "round $round: $(grep -c . "$out") log lines, filter useful=${useful:-killed before the statistics}"
  useful_total=$((useful_total + ${useful:-0}))
done

newest=$(cd "$TMP/db" && printf '%s\n' OPTIONS-* | sort -t- -k2 -n | tail -1)
in_effect=$(sed -n 's/^ *filter_policy=//p' "$TMP/db/$newest")
case "$in_effect" in
  *"${POLICY%%:*}"*) ok "the DB's OPTIONS file names $in_effect" ;;
  *) fail "the DB's OPTIONS file says filter_policy=$in_effect" ;;
esac
[ "$useful_total" -gt 0 ] || fail "rocksdb.bloom.filter.useful is 0: the filter answered no lookup"
ok "$ROUNDS rounds ($((ROUNDS - 1)) killed with SIGKILL), every verification passed, filter useful=$useful_total"
