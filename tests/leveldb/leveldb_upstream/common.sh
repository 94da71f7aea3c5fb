# Shared by tests/leveldb/leveldb_upstream/run and
# bench/leveldb/leveldb_db_bench.sh (sourced, not run): fetches LevelDB
# 1.23's source from Debian, installs blockbloom's core library and LevelDB
# adapter from a blockbloom build tree into a private prefix, and builds
# LevelDB from source with targets of CMakeLists.txt beside this file.
#
# Functions set these globals:
#   lu_fetch:   LU_SRC (the pristine, unpacked leveldb-1.23 folder)
#   lu_build:   LU_OUT (the wrapper build folder, programs in it)
# Inputs (set before calling):
#   LU_REPO     the blockbloom checkout holding this folder
#   LU_CACHE    where the downloaded source is kept and unpacked
#               (default $LU_REPO/build/leveldb-upstream)
#   LU_BB_BUILD the blockbloom build tree to link (default $LU_REPO/build/release)
#   LU_JOBS     parallel build jobs (default nproc)
#   LU_SUITE    1: configure the wrapper with -DLU_SUITE=ON (LevelDB's whole
#               test suite, suite.cmake) in a build folder of its own

# The Debian source download, shared with scripts/fetch-redis-module-api.
# shellcheck source=../../../scripts/lib/debian_source.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/debian_source.sh"

# Exit code when LevelDB's source cannot be fetched, so that callers
# (ctest's SKIP_RETURN_CODE, scripts/test) can tell "skipped" from "failed".
LU_SKIP=$DS_SKIP

# The upstream tarball inside Debian's source package: any Debian revision of
# bookworm's leveldb 1.23 ships this same file, so the check pins upstream
# 1.23 without pinning Debian's revision (1.23-4 when this was written).
LU_ORIG=leveldb_1.23.orig.tar.gz
LU_ORIG_SHA256=9a37f8a6174f09bd622bc723b55881dc541cd50747cbd08831c2a82d620f6d76

LU_LOCK=/tmp/bb-quiet.lock

lu_log() { printf '%s: %s\n' "${LU_NAME:-leveldb_upstream}" "$*" >&2; }

# Runs "$@" under the machine's shared quiet lock (builds and test runs; see
# the project's helper notes): a timing run elsewhere takes it exclusively.
lu_shared() { flock -s "$LU_LOCK" "$@"; }

lu_defaults() {
  LU_CACHE=${LU_CACHE:-$LU_REPO/build/leveldb-upstream}
  LU_BB_BUILD=${LU_BB_BUILD:-$LU_REPO/build/release}
  LU_JOBS=${LU_JOBS:-$(nproc)}
  mkdir -p "$LU_CACHE"
  LU_CACHE=$(cd "$LU_CACHE" && pwd)
}

# Makes $LU_SRC: the pristine upstream 1.23 tree (Debian's own patches are NOT
# applied: 1001-fix_bloom_test.patch relaxes bloom_test's 2% FPR bound to 3%;
# the others are build changes done here in CMakeLists.txt instead). Exits
# with $LU_SKIP when the source cannot be fetched.
lu_fetch() {
  lu_defaults
  local dl=$LU_CACHE/dl rc=0
  DS_NAME=${LU_NAME:-leveldb_upstream} \
    ds_fetch leveldb "$LU_CACHE" "$LU_ORIG" "$LU_ORIG_SHA256" || rc=$?
  if [ "$rc" = 1 ]; then
    echo "SKIPPED: LevelDB 1.23's source could not be fetched from the" \
      "Debian archive (apt-get source leveldb); LevelDB's own tests were" \
      "not run" >&2
    exit "$LU_SKIP"
  elif [ "$rc" != 0 ]; then
    exit 1
  fi
  LU_SRC=$LU_CACHE/leveldb-1.23
  if [ ! -f "$LU_SRC/.unpacked" ]; then
    rm -rf "$LU_SRC"
    tar -xzf "$dl/$LU_ORIG" -C "$LU_CACHE"
    touch "$LU_SRC/.unpacked"
  fi
}

# Builds blockbloom's core and LevelDB adapter in $LU_BB_BUILD (configuring
# a Release tree there if there is none), installs them into a prefix inside
# the wrapper build folder, then configures the wrapper (CMakeLists.txt here)
# and builds the given targets. Sets LU_OUT.
lu_build() {
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  if [ ! -f "$LU_BB_BUILD/CMakeCache.txt" ]; then
    lu_log "configuring a blockbloom Release build in $LU_BB_BUILD"
    lu_shared cmake -S "$LU_REPO" -B "$LU_BB_BUILD" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  fi
  LU_BB_BUILD=$(cd "$LU_BB_BUILD" && pwd)
  if grep -q '^BUILD_SHARED_LIBS:BOOL=ON' "$LU_BB_BUILD/CMakeCache.txt"; then
    # A shared adapter carries a DT_NEEDED on Debian's libleveldb.so: the
    # programs would hold two LevelDBs.
    lu_log "$LU_BB_BUILD builds shared libraries; use a static build tree"
    exit 1
  fi
  lu_shared cmake --build "$LU_BB_BUILD" -j "$LU_JOBS" \
    --target blockbloom blockbloom_leveldb >/dev/null
  # Inside the blockbloom build tree it links: one wrapper build per tree.
  # The suite's LevelDB has an edited Options() that the default mode's
  # programs could not link, so it gets a folder of its own.
  LU_OUT=$LU_BB_BUILD/leveldb-upstream
  local suite=()
  if [ "${LU_SUITE:-0}" = 1 ]; then
    LU_OUT=$LU_BB_BUILD/leveldb-upstream-suite
    suite=(-DLU_SUITE=ON)
  fi
  local prefix=$LU_OUT/blockbloom-prefix
  rm -rf "$prefix"
  cmake --install "$LU_BB_BUILD" --component core --prefix "$prefix" >/dev/null
  cmake --install "$LU_BB_BUILD" --component leveldb --prefix "$prefix" >/dev/null
  lu_shared cmake -S "$here" -B "$LU_OUT" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "${launcher[@]}" -DLEVELDB_SOURCE_DIR="$LU_SRC" \
    -DCMAKE_PREFIX_PATH="$prefix" ${suite[@]+"${suite[@]}"} \
    >"$LU_OUT.configure.log" 2>&1 ||
    { cat "$LU_OUT.configure.log" >&2; exit 1; }
  lu_log "building $* in $LU_OUT (log: $LU_OUT.build.log)"
  lu_shared cmake --build "$LU_OUT" -j "$LU_JOBS" --target "$@" \
    >"$LU_OUT.build.log" 2>&1 || { tail -50 "$LU_OUT.build.log" >&2; exit 1; }
}

# Fails unless program $1 holds exactly one LevelDB, the one built from
# source: no libleveldb.so among its libraries, LevelDB's code defined inside.
lu_check_one_leveldb() {
  if ldd "$1" | grep 'libleveldb' >/dev/null; then
    lu_log "$1 loads a shared libleveldb besides the source-built one:"
    ldd "$1" | grep libleveldb >&2
    exit 1
  fi
  if nm -C -D --undefined-only "$1" | grep ' leveldb::' >/dev/null; then
    lu_log "$1 imports LevelDB symbols from a shared library:"
    nm -C -D --undefined-only "$1" | grep ' leveldb::' | head >&2
    exit 1
  fi
  if ! nm -C --defined-only "$1" | grep ' leveldb::' >/dev/null; then
    lu_log "$1 does not contain LevelDB's code"
    exit 1
  fi
}
