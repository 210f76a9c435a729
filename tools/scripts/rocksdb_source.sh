#!/usr/bin/env bash
# Builds a RocksDB release from source into a cache folder outside the
# clone, for the versions Debian does not ship. Later runs reuse the cache.
#
#   tools/scripts/rocksdb_source.sh 9.7.4 prefix   # RocksDB installed (no plugin),
#                                          # static and shared libraries:
#                                          # prints the prefix for
#                                          # -DCMAKE_PREFIX_PATH
#   tools/scripts/rocksdb_source.sh 9.7.4 tools    # db_bench, db_stress, ldb,
#                                          # sst_dump with this checkout's
#                                          # sstfilter built in (in-tree
#                                          # plugin): prints their folder
#   tools/scripts/rocksdb_source.sh 9.7.4 tsan     # RocksDB's static library built
#                                          # with ThreadSanitizer, installed:
#                                          # prints its prefix
#   tools/scripts/rocksdb_source.sh 9.7.4 src      # the source tree (fetched, not
#                                          # built): prints its folder
#   tools/scripts/rocksdb_source.sh --list         # the versions pinned below
#
# Cache: $SSTFILTER_CACHE, default ~/.cache/sstfilter. Progress goes to
# stderr; stdout has only the path asked for.
#
# Where the source comes from: RocksDB's tree ships inside releases of the
# npm package @nxtedition/rocksdb (deps/rocksdb/rocksdb), the only RocksDB
# newer than Debian's that this project's machines can fetch: 8.8.0, 9.5.0,
# 9.6.1 and 9.7.4. Each tarball is checked against the sha256 pinned below.
# The trees are pruned; docs/rocksdb_source.md says what we supply
# (tools/scripts/rocksdb_source/) and why.
#
# The one build folder serves both products: the plain librocksdb, shared
# and static, is built and installed first; then the same folder is
# reconfigured with ROCKSDB_PLUGINS=sstfilter, which adds our sources
# without changing any RocksDB compile command, so only our files and
# build_version.cc compile again before the shared library is relinked
# and the tools (which RocksDB links to it) link. RocksDB's CMake would
# compile every source a second time for the static library; we archive
# the shared library's (position-independent) objects instead, which
# halves the first build. (Ninja, because it rebuilds by command line:
# make would rebuild every object of the library, whose flags file our
# per-file flags change.)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KNOWN="8.8.0 9.5.0 9.6.1 9.7.4"
if [ "${1:-}" = --list ]; then echo "$KNOWN"; exit 0; fi
VERSION=${1:?usage: rocksdb_source.sh VERSION prefix|tools|tsan|src, or --list}
WHAT=${2:?usage: rocksdb_source.sh VERSION prefix|tools|tsan|src, or --list}

# The npm package @nxtedition/rocksdb vendors RocksDB's source; each
# version we build is pinned to one package release and its sha256.
case "$VERSION" in
  8.8.0) NPM_VERSION=9.0.1
         SHA256=5a7af9deda37c5a542c869dfde28f34b1318e8eb1bb70550ec44ee77058dd0d9 ;;
  9.5.0) NPM_VERSION=10.3.8
         SHA256=6fc5c22ea1b6b7724cc6789016452ddda8a833f3aeccd3d91a6301668870c442 ;;
  9.6.1) NPM_VERSION=12.0.13
         SHA256=159d31103c341e30bed0cb1ec08d133d6b835130ab44a726b7eab298d17f99dd ;;
  9.7.4) NPM_VERSION=12.2.12
         SHA256=75c7bcea92019ab598bcfd934a60328acea9364550428ca697b8d68dfaca016d ;;
  *) echo "rocksdb_source.sh: no pinned source for RocksDB $VERSION (known: $KNOWN)" >&2
     exit 2 ;;
esac
NPM_SPEC=@nxtedition/rocksdb@$NPM_VERSION
TARBALL=nxtedition-rocksdb-$NPM_VERSION.tgz
TREE=package/deps/rocksdb/rocksdb
case "$WHAT" in prefix|tools|tsan|src) ;;
  *) echo "rocksdb_source.sh: say 'prefix', 'tools', 'tsan' or 'src'" >&2; exit 2 ;;
esac

CACHE=${SSTFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sstfilter}/rocksdb-$VERSION
SRC=$CACHE/src
BUILD=$CACHE/build
PREFIX=$CACHE/prefix
JOBS=$(nproc)
# What the source build needs; npm comes with the machine image here, and
# from Debian's package elsewhere.
packages=(cmake g++ ninja-build libgflags-dev libsnappy-dev libgtest-dev)
command -v npm >/dev/null || packages+=(npm)
"$ROOT/tools/scripts/install_packages.sh" "${packages[@]}"
mkdir -p "$CACHE"
log() { echo "== rocksdb $VERSION: $*" >&2; }

# One run at a time per cache (compare.sh and test.sh may both call us).
exec 9>"$CACHE/lock"
flock 9

# Copies $1 to $2 only if the content differs, so the build sees a new
# mtime exactly when a file changed.
sync_file() {
  mkdir -p "$(dirname "$2")"
  cmp -s "$1" "$2" || cp "$1" "$2"
}

fetch_source() {
  [ -f "$SRC/.sstfilter-source-$SHA256" ] && return
  log "fetching $NPM_SPEC with npm pack"
  local dl=$CACHE/download
  mkdir -p "$dl"
  [ -f "$dl/$TARBALL" ] || (cd "$dl" && npm pack --silent "$NPM_SPEC" >/dev/null)
  echo "$SHA256  $dl/$TARBALL" | sha256sum -c --quiet - ||
    { echo "rocksdb_source.sh: $TARBALL does not match the pinned sha256" >&2
      rm -f "$dl/$TARBALL"; exit 1; }
  rm -rf "$SRC" "$BUILD" "$PREFIX"
  mkdir -p "$SRC"
  tar xzf "$dl/$TARBALL" -C "$SRC" --strip-components=4 "$TREE"
  local found
  found=$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
            "$SRC/include/rocksdb/version.h" | paste -sd.)
  [ "$found" = "$VERSION" ] ||
    { echo "rocksdb_source.sh: $TARBALL holds RocksDB $found, not $VERSION" >&2; exit 1; }
  touch "$SRC/.sstfilter-source-$SHA256"
}

# What the pruned tree lacks (docs/rocksdb_source.md).
apply_fixes() {
  sync_file "$ROOT/tools/scripts/rocksdb_source/ReadVersion.cmake" "$SRC/cmake/modules/ReadVersion.cmake"
  sync_file "$ROOT/tools/scripts/rocksdb_source/gtest_CMakeLists.txt" \
            "$SRC/third-party/gtest-1.8.1/fused-src/gtest/CMakeLists.txt"
}

# RocksDB's CMake compiles through ccache whenever it finds one. Its builds
# here are cached whole, so ccache would add nothing; and a build folder
# made before ccache was installed would see every command change and be
# rebuilt. So never.
NO_CCACHE=-DCCACHE_FOUND=CCACHE_FOUND-NOTFOUND

configure() {  # ROCKSDB_PLUGINS value
  # A build folder left by another generator cannot be reconfigured.
  if [ -f "$BUILD/CMakeCache.txt" ] &&
     ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$BUILD/CMakeCache.txt"; then
    rm -rf "$BUILD"
  fi
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DPORTABLE=1 \
    -DROCKSDB_BUILD_SHARED=ON -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON \
    -DWITH_TOOLS=ON -DWITH_CORE_TOOLS=ON -DWITH_TRACE_TOOLS=OFF \
    -DWITH_GFLAGS=ON -DWITH_SNAPPY=ON -DWITH_LIBURING=OFF \
    -DFAIL_ON_WARNINGS=OFF $NO_CCACHE -DROCKSDB_PLUGINS="$1" >"$CACHE/configure.log" 2>&1 ||
    { tail -30 "$CACHE/configure.log" >&2; exit 1; }
}

build() {  # targets...
  local t args=()
  for t in "$@"; do args+=(--target "$t"); done
  cmake --build "$BUILD" -j "$JOBS" "${args[@]}" >"$CACHE/build.log" 2>&1 ||
    { tail -40 "$CACHE/build.log" >&2; exit 1; }
}

# The plain library, installed with RocksDB's own package config. (The
# marker names the recipe: a cache from an older recipe is redone.)
INSTALLED=$PREFIX/.sstfilter-installed-static-shared
ensure_prefix() {
  [ -f "$INSTALLED" ] && return
  local start=$SECONDS
  log "building the library (Release, about 12 minutes on 2 cores)"
  configure ""
  build rocksdb-shared
  # The static library RocksDB's install step expects, from the same
  # objects (their list from Ninja, so no stale plugin object comes along).
  (cd "$BUILD" && ninja -t inputs rocksdb-shared | grep '\.o$' > static_objects.txt &&
   rm -f librocksdb.a && xargs ar rcs librocksdb.a < static_objects.txt)
  rm -rf "$PREFIX"
  cmake --install "$BUILD" >"$CACHE/install.log" 2>&1
  touch "$INSTALLED"
  log "library built and installed in $((SECONDS - start)) s"
}

# This checkout as RocksDB's in-tree plugin plugin/sstfilter: the files the
# plugin build reads, copied (content-compared) so that the cache follows
# whichever clone calls us.
sync_plugin() {
  local dest=$SRC/plugin/sstfilter f
  (cd "$ROOT" && git ls-files -- CMakeLists.txt sstfilter.mk cmake plugin) |
    while read -r f; do sync_file "$ROOT/$f" "$dest/$f"; done
}

ensure_tools() {
  ensure_prefix
  sync_plugin
  local start=$SECONDS
  # Always: RocksDB reads sstfilter.mk at configure time only. Ninja then
  # rebuilds just the commands that changed.
  configure sstfilter
  log "building db_bench, db_stress, ldb, sst_dump with sstfilter in-tree"
  build db_bench db_stress ldb sst_dump
  mkdir -p "$CACHE/bin"
  ln -sf "$BUILD/db_bench" "$BUILD/db_stress_tool/db_stress" "$BUILD/tools/ldb" \
         "$BUILD/tools/sst_dump" "$CACHE/bin/"
  log "tools ready in $((SECONDS - start)) s"
}

# The static library alone, built with ThreadSanitizer in its own folder,
# for the tests that race writers through RocksDB (tools/scripts/test.sh step 3):
# TSan sees a happens-before only through instrumented code, and a
# library built without it synchronises through atomics TSan cannot see.
# -O1 and line tables only: a shorter build, and stacks that name lines.
TSAN_BUILD=$CACHE/build-tsan
TSAN_PREFIX=$CACHE/prefix-tsan
ensure_tsan() {
  [ -f "$TSAN_PREFIX/.sstfilter-installed-tsan" ] && return
  local start=$SECONDS
  log "building the library with ThreadSanitizer (about 12 minutes on 2 cores)"
  cmake -S "$SRC" -B "$TSAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
    -DCMAKE_INSTALL_PREFIX="$TSAN_PREFIX" -DPORTABLE=1 -DWITH_TSAN=ON \
    -DROCKSDB_BUILD_SHARED=OFF -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=OFF \
    -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF -DWITH_TRACE_TOOLS=OFF \
    -DWITH_GFLAGS=OFF -DWITH_SNAPPY=ON -DWITH_LIBURING=OFF \
    -DFAIL_ON_WARNINGS=OFF $NO_CCACHE >"$CACHE/configure-tsan.log" 2>&1 ||
    { tail -30 "$CACHE/configure-tsan.log" >&2; exit 1; }
  cmake --build "$TSAN_BUILD" -j "$JOBS" --target rocksdb >"$CACHE/build-tsan.log" 2>&1 ||
    { tail -40 "$CACHE/build-tsan.log" >&2; exit 1; }
  rm -rf "$TSAN_PREFIX"
  cmake --install "$TSAN_BUILD" >"$CACHE/install-tsan.log" 2>&1 ||
    { tail -30 "$CACHE/install-tsan.log" >&2; exit 1; }
  touch "$TSAN_PREFIX/.sstfilter-installed-tsan"
  log "TSan library built and installed in $((SECONDS - start)) s"
}

fetch_source
apply_fixes
case "$WHAT" in
  prefix) ensure_prefix; echo "$PREFIX" ;;
  tools) ensure_tools; echo "$CACHE/bin" ;;
  tsan) ensure_tsan; echo "$TSAN_PREFIX" ;;
  src) echo "$SRC" ;;
esac
