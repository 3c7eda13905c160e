#!/bin/sh
# Build CRIU 4.2.1 from Debian's own sid source package into a sandbench-owned prefix.
# Why: bookworm's CRIU 3.17 fails every dump on kernels >= 6.13 (vDSO layout) and 4.1 fails on any
# AF_INET socket on kernels >= 6.16 (data/checkpoint/notes.md). runc finds criu through PATH, so the
# checkpoint mechanisms put $PREFIX/sbin first in PATH for podman, runc and the private dockerd.
# Idempotent: skipped when $PREFIX/sbin/criu already reports the wanted version.
set -eu

VERSION="${CRIU_VERSION:-4.2.1}"
DEBIAN_REVISION="${CRIU_DEBIAN_REVISION:-1}"
PREFIX="${SANDBENCH_CRIU_PREFIX:-/opt/sandbench-criu}"
MIRROR="${CRIU_SOURCE_MIRROR:-http://deb.debian.org/debian}"
BUILD_DEPS="build-essential pkg-config python3 libbsd-dev libcap-dev libgnutls28-dev libnet1-dev libnftables-dev
  libnl-3-dev libnl-route-3-dev libprotobuf-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
  uuid-dev libaio-dev"

log() { printf 'build-criu: %s\n' "$*" >&2; }

if [ -x "$PREFIX/sbin/criu" ] && "$PREFIX/sbin/criu" --version 2>/dev/null | grep -q "Version: $VERSION\$"; then
  log "CRIU $VERSION already in $PREFIX"
  exit 0
fi
[ "$(id -u)" = 0 ] || { log "needs root (apt-get build deps, install to $PREFIX)"; exit 1; }

log "installing build dependencies"
# shellcheck disable=SC2086 # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $BUILD_DEPS >/dev/null

WORK="$(mktemp -d /tmp/sandbench-criu-build.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT INT TERM

# A private apt configuration with one deb-src sid line: the host's sources stay untouched and
# nothing from sid is ever installed, only the source package is downloaded.
mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/apt/sources.list.d"
printf 'deb-src %s sid main\n' "$MIRROR" >"$WORK/apt/sources.list"
cat >"$WORK/apt/apt.conf" <<EOF
Dir::Etc::SourceList "$WORK/apt/sources.list";
Dir::Etc::SourceParts "$WORK/apt/sources.list.d";
Dir::State::Lists "$WORK/apt/lists";
Dir::Cache "$WORK/apt/cache";
EOF
export APT_CONFIG="$WORK/apt/apt.conf"

cd "$WORK"
log "fetching the criu $VERSION-$DEBIAN_REVISION source package (sid)"
apt-get update -q >/dev/null
# --download-only: the orig tarball is all the build needs (the .debian.tar.xz has been seen to 404).
apt-get source --download-only -q "criu=$VERSION-$DEBIAN_REVISION" >/dev/null 2>&1 || true
ORIG="$(ls criu_"$VERSION".orig.tar.* 2>/dev/null | head -n 1 || true)"
if [ -z "$ORIG" ]; then
  log "apt-get source gave no orig tarball; trying the pool directly"
  for ext in xz gz bz2; do
    if curl -fsSLo "criu_$VERSION.orig.tar.$ext" "$MIRROR/pool/main/c/criu/criu_$VERSION.orig.tar.$ext"; then
      ORIG="criu_$VERSION.orig.tar.$ext"
      break
    fi
  done
fi
[ -n "$ORIG" ] || { log "no source tarball for criu $VERSION from $MIRROR (sid)"; exit 1; }
unset APT_CONFIG

mkdir src
tar -xf "$ORIG" -C src --strip-components=1
log "building (make criu, about 30 s on 2 cores)"
make -C src -j"$(nproc)" criu >"$WORK/make.log" 2>&1 || { tail -n 40 "$WORK/make.log" >&2; exit 1; }

mkdir -p "$PREFIX/sbin"
install -m 0755 src/criu/criu "$PREFIX/sbin/criu.new"
mv "$PREFIX/sbin/criu.new" "$PREFIX/sbin/criu"
printf '%s\n' "criu $VERSION from Debian sid source ($ORIG), built $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$PREFIX/BUILD-INFO"
log "installed: $("$PREFIX/sbin/criu" --version | head -n 1) in $PREFIX/sbin"
