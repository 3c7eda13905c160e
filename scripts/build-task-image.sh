#!/bin/sh
# Builds the one task root filesystem every backend runs, as a deterministic tar.
# Usage: build-task-image.sh OUT_TAR SUITE MIRROR PACKAGES SOURCE_DATE_EPOCH
# Deterministic because mmdebstrap honours SOURCE_DATE_EPOCH (file mtimes, sorted tar members)
# and we drop files whose content depends on the build moment (logs, caches, ld.so.cache is rebuilt).
set -eu
out_tar=$1 suite=$2 mirror=$3 packages=$4 epoch=$5
export SOURCE_DATE_EPOCH="$epoch"
tmp_tar="$out_tar.partial"
mmdebstrap --quiet --variant=minbase --mode=root --format=tar \
  --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/* "$1"/var/cache/ldconfig/aux-cache' \
  --customize-hook='mkdir -p "$1"/workspace "$1"/scratch "$1"/opt/sandbench' \
  --customize-hook='printf "sandbench-task\n" > "$1"/etc/hostname' \
  "$suite" "$tmp_tar" "$mirror"
mv "$tmp_tar" "$out_tar"
