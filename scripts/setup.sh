#!/bin/sh
# Sets up sandbench on a fresh Debian 12 machine, as root. Per need (issue 35):
#   scripts/setup.sh                     the main job: every backend's packages, the Node dependencies,
#                                        pVisor (optional), the task image; then `sandbench doctor`
#   scripts/setup.sh --with P[,P...]     that, plus the named heavy pieces
#   scripts/setup.sh --only P[,P...]     only the named pieces (`npm test` runs `--only all` first)
# Pieces (each also installs on first use where it can, or its error names this command):
#   criu        CRIU 4.2.1 built from source into /opt/sandbench-criu (checkpoint kind, podman/docker arms)
#   agents      the agent CLI layers the tests run: codex, opencode, claude (~1 GB from npm), openhands (PyPI; the agent
#               kind builds a missing layer on first use)
#   chromium    the browser the report tests render report.html in
#   slurm       slurm-wlm and munge (the fleet kind's Slurm path; its tests start their own cluster)
#   lazy-image  squashfs, httpfs2, a local registry and qemu's network block drivers (lazy-image kind)
#   all         every piece: what the test suite needs
# Safe to run again: each step is skipped or cheap when already done.
set -eu
cd "$(dirname "$0")/.."

BASE_PACKAGES="
  bubblewrap util-linux uidmap fuse3
  podman runc conmon crun runsc firejail systemd-container
  docker.io containerd
  qemu-system-x86 qemu-utils busybox-static cpio kmod e2fsprogs erofs-utils
  mmdebstrap debootstrap
  hyperfine python3-venv ca-certificates git
  iproute2
  gcc libc6-dev
  socat strace
  openssh-client
"
ALL_PIECES="criu agents chromium slurm lazy-image"

log() { printf 'setup: %s\n' "$*" >&2; }
invocation="$0 $*"
usage() { log "usage: $0 [--with PIECE[,PIECE...]] [--only PIECE[,PIECE...]]; pieces: $ALL_PIECES all"; exit 2; }

base=yes
pieces=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --with) [ "$#" -ge 2 ] || usage; pieces="$pieces $(printf '%s' "$2" | tr ',' ' ')"; shift 2 ;;
    --with=*) pieces="$pieces $(printf '%s' "${1#--with=}" | tr ',' ' ')"; shift ;;
    --only) [ "$#" -ge 2 ] || usage; base=no; pieces="$pieces $(printf '%s' "$2" | tr ',' ' ')"; shift 2 ;;
    --only=*) base=no; pieces="$pieces $(printf '%s' "${1#--only=}" | tr ',' ' ')"; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown argument: $1"; usage ;;
  esac
done
wanted=""
for piece in $pieces; do
  case "$piece" in
    all) wanted="$ALL_PIECES" ;;
    criu|agents|chromium|slurm|lazy-image) case " $wanted " in *" $piece "*) ;; *) wanted="$wanted $piece" ;; esac ;;
    *) log "unknown piece: $piece"; usage ;;
  esac
done
has() { case " $wanted " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

packages=""
[ "$base" = no ] || packages="$BASE_PACKAGES"
! has chromium || packages="$packages chromium"
! has slurm || packages="$packages slurm-wlm munge"
! has lazy-image || packages="$packages squashfs-tools httpfs2 docker-registry qemu-block-extra"

# `--only` leaves node_modules alone: `npm test` runs it from a tree whose dependencies are in use.
# `npm ci` needs nothing apt installs, so it runs beside the package installation: on a fresh machine
# that saves its ~20 s from the first command's time.
npm_pid=""
if [ "$base" = yes ] && { [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  log "installing Node dependencies (npm ci, in the background)"
  npm_log=$(mktemp)
  npm ci --no-audit --no-fund >"$npm_log" 2>&1 &
  npm_pid=$!
fi

missing=""
for package in $packages; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
# The VM backends fetch the guest kernel with `apt-get download`, which needs package lists.
if [ -n "$missing" ] || { [ "$base" = yes ] && ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; }; then
  [ "$(id -u)" = 0 ] || { log "missing Debian packages:$missing — run as root: $invocation"; exit 1; }
  log "installing Debian packages:$missing"
  apt-get update -q
  # slurm-wlm's and munge's postinsts start their daemons through invoke-rc.d; the fleet tests start
  # their own cluster (scripts/start-slurm.sh), so deny service starts during the install unless a policy exists.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\n# sandbench setup: no service starts during package installation\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  # shellcheck disable=SC2086 # word splitting of the package list is intended
  [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
  [ -z "$policy" ] || { rm -f "$policy"; trap - EXIT; }
fi

# Waits for the background `npm ci` started above, showing its output; stops setup if it failed.
finish_npm_ci() {
  [ -n "$npm_pid" ] || return 0
  npm_status=0
  wait "$npm_pid" || npm_status=$?
  cat "$npm_log" >&2
  rm -f "$npm_log"
  npm_pid=""
  [ "$npm_status" = 0 ] || { log "npm ci failed (exit $npm_status); its output is above"; exit 1; }
}
finish_npm_ci

if [ "$base" = yes ]; then
  # The compiled CLI (dist/): bin/sandbench.mjs uses it while it matches the sources, so rebuild it
  # every time (≈1 s); `npm ci` builds it too (the prepare script).
  node scripts/build-dist.mjs
  # The native launcher every directly spawned trial goes through is built on first use into
  # $SANDBENCH_HOME/launcher/ (executors/launch/launcher-binary.ts); `doctor` below does it.

  # pVisor: an arm of the main job where PyPI is reachable; never fatal.
  if ! command -v pvisor >/dev/null 2>&1; then
    if python3 -m venv /opt/sandbench-pvisor >/dev/null 2>&1 && /opt/sandbench-pvisor/bin/pip install -q pvisor-sandbox; then
      ln -sf /opt/sandbench-pvisor/bin/pvisor /usr/local/bin/pvisor
      ln -sf /opt/sandbench-pvisor/bin/pvisor-replay /usr/local/bin/pvisor-replay
      log "pvisor installed: $(pvisor --version)"
    else
      log "pvisor-sandbox could not be installed; the pvisor arms will be skipped (see sandbench doctor)"
    fi
  fi
fi

# CRIU >= 4.2 for podman checkpoints: bookworm's 3.17 (and trixie's 4.1) fail on this kernel, so it is
# built from Debian's sid source package into /opt/sandbench-criu; never fatal (the arm says why).
! has criu || sh scripts/build-criu.sh || log "CRIU could not be built; checkpoint arms of podman will be unavailable (see sandbench doctor)"

# The agent CLI layers the tests run (codex and opencode for CI's agent spec, Claude Code for the replay
# kind's native-resume tests; from npm, ~1 GB, two or three minutes the first time), cached under
# $SANDBENCH_HOME/agents; never fatal (the agent run then names the layer).
! has agents || sh scripts/build-agent-layers.sh codex opencode claude || log "an agent layer could not be built; the agent arms will fail with the build's message"
# OpenHands for test/agent/openhands.test.ts: CPython 3.12 (pyenv's) + openhands-sdk from PyPI via uv, ~2 min, 811 MiB.
! has agents || sh scripts/build-agent-layers.sh openhands || log "the OpenHands layer could not be built (it needs a Python 3.12: pyenv install 3.12, or SANDBENCH_PYTHON312)"

if [ "$base" = yes ]; then
  log "building the task image (cached after the first build)"
  node bin/sandbench.mjs images build >/dev/null
  node bin/sandbench.mjs doctor
fi
