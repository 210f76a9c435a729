# Sourced by tools/scripts/setup.sh and tools/scripts/fuzz.sh: compiles
# through ccache, whose cache lives outside the clone, so that a fresh
# clone (every file new, so every object stale to make) recompiles only
# what changed since the last run on this machine.
#
# Sets CCACHE_LAUNCHER_ARGS, the CMake arguments to add at configure time
# (empty when ccache is missing; the build is then as without it).
# Objects are keyed by content with paths taken relative to the clone, so
# two clones in different folders share them; debug info then names the
# first clone's paths, which is all a cached object can do.
CCACHE_LAUNCHER_ARGS=()
if command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-${SSTFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sstfilter}/ccache}
  export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}
  CCACHE_LAUNCHER_ARGS=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
