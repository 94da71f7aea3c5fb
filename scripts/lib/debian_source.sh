# Downloads a Debian source package's files with apt-get (sourced, not run),
# without touching the system's apt configuration: a private deb-src list,
# package lists and cache under a folder of the caller's. Shared by
# tests/leveldb/leveldb_upstream/common.sh (LevelDB's source) and
# scripts/fetch-redis-module-api (redismodule.h from Redis's source).
#
#   ds_fetch PACKAGE CACHE ORIG SHA256
#     Makes CACHE/dl/ORIG (the upstream tarball inside Debian's source package
#     PACKAGE of bookworm) hold the file whose sha256 is SHA256: the cached
#     one when it does, else downloaded with `apt-get source --download-only`
#     into CACHE/dl (package lists and apt's cache in CACHE/apt).
#     Returns 0 when it is there, 1 (after apt's log on stderr) when the
#     archive cannot be reached, 2 when the package has no such file.
#   ds_sha_ok FILE SHA256   whether FILE exists and has that sha256.
#
# Messages go to stderr, prefixed with $DS_NAME (default debian_source).
# Callers turn 1 into their "skipped" exit code (DS_SKIP, 77: ctest's
# SKIP_RETURN_CODE and scripts/test tell it from a failure).

DS_SKIP=77

ds_log() { printf '%s: %s\n' "${DS_NAME:-debian_source}" "$*" >&2; }

ds_sha_ok() {
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# Downloads Debian's source package $1 (bookworm) into $2/dl. Returns 1
# (after a message) when the archive cannot be reached.
ds_download() {
  local package=$1 cache
  mkdir -p "$2"
  cache=$(cd "$2" && pwd)
  local apt=$cache/apt dl=$cache/dl
  mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache" "$dl"
  cat >"$apt/sources.list.d/$package-src.sources" <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  local opts=(-o Dir::Etc::SourceList=/dev/null
    -o "Dir::Etc::SourceParts=$apt/sources.list.d"
    -o "Dir::State::Lists=$apt/lists"
    -o "Dir::Cache=$apt/cache"
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o Acquire::Retries=2 -o Acquire::http::Timeout=30)
  # As root, apt drops to the _apt user to download; it could not write the
  # build folder, so let it stay root (it only writes under the cache).
  if [ "$(id -u)" = 0 ]; then opts+=(-o APT::Sandbox::User=root); fi
  ds_log "downloading Debian's source package $package (bookworm) into $dl"
  if ! apt-get "${opts[@]}" -q update >"$apt/update.log" 2>&1 ||
    grep -q '^\(W\|E\): Failed to fetch' "$apt/update.log"; then
    cat "$apt/update.log" >&2
    return 1
  fi
  if ! (cd "$dl" && apt-get "${opts[@]}" -q source --download-only "$package" \
    >"$apt/source.log" 2>&1); then
    cat "$apt/source.log" >&2
    return 1
  fi
}

ds_fetch() {
  local package=$1 cache=$2 orig=$3 sha256=$4
  if ds_sha_ok "$cache/dl/$orig" "$sha256"; then
    ds_log "using the cached source $cache/dl/$orig"
    return 0
  fi
  local t0=$SECONDS
  ds_download "$package" "$cache" || return 1
  if ! ds_sha_ok "$cache/dl/$orig" "$sha256"; then
    ds_log "Debian's $package source is not the pinned upstream release (no" \
      "$orig with sha256 $sha256 in $cache/dl)"
    return 2
  fi
  ds_log "fetched in $((SECONDS - t0)) s"
}
