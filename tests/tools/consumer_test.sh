#!/usr/bin/env bash
# Installs this build of sstfilter into a temporary prefix and builds the
# user project in tests/tools/consumer against it, linked with --as-needed:
# with the documented rocksdb::RegisterSstFilter call the policy loads;
# without any reference to sstfilter, the linker drops libsstfilter.so and
# the policy silently loads as null (the hazard the README warns about).
#
#   consumer_test.sh <sstfilter build dir> <tests/tools/consumer dir> [RocksDB prefix]
set -euo pipefail
BUILD=$1 SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
for register in ON OFF; do
  cmake -S "$SRC" -B "$TMP/$register" -DCMAKE_PREFIX_PATH="$TMP/prefix;${3:-}" \
        -DCALL_REGISTER=$register >/dev/null
  cmake --build "$TMP/$register" >/dev/null
  set +e
  out=$(LD_LIBRARY_PATH="$TMP/prefix/lib" "$TMP/$register/consumer")
  rc=$?
  set -e
  echo "CALL_REGISTER=$register: $out"
  if [ "$register" = ON ] && [ $rc -ne 0 ]; then
    echo "FAIL: with the RegisterSstFilter call the policy must load" >&2; exit 1
  fi
  if [ "$register" = OFF ] && [ $rc -eq 0 ]; then
    echo "note: the linker kept libsstfilter without a reference (no --as-needed effect here)"
  fi
done
echo "PASS: a --as-needed consumer that calls RegisterSstFilter gets the policies"
