#!/bin/sh
# Sets up everything sandbench needs on a fresh Debian 12 machine, as root: system packages for every
# backend, the Node dependencies, pVisor (optional: its absence only shows in `sandbench doctor`),
# and the task image. Safe to run again: each step is skipped or cheap when already done.
set -eu
cd "$(dirname "$0")/.."

APT_PACKAGES="
  bubblewrap util-linux uidmap fuse3
  podman runc conmon crun runsc firejail systemd-container
  docker.io containerd
  qemu-system-x86 qemu-utils qemu-block-extra busybox-static cpio kmod e2fsprogs erofs-utils
  mmdebstrap debootstrap squashfs-tools httpfs2 docker-registry
  hyperfine chromium python3-venv ca-certificates git
  iproute2
  gcc libc6-dev
  slurm-wlm munge
  socat strace
  openssh-client
"

log() { printf 'setup: %s\n' "$*" >&2; }

missing=""
for package in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
# The VM backends fetch the guest kernel with `apt-get download`, which needs package lists.
if [ -n "$missing" ] || ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
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
  [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
  [ -z "$policy" ] || { rm -f "$policy"; trap - EXIT; }
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing Node dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi
# The compiled CLI (dist/): bin/sandbench.mjs uses it while it matches the sources, so rebuild it
# every time (≈1 s); `npm ci` builds it too (the prepare script).
node scripts/build-dist.mjs

# The native launcher (issue 14) every directly spawned trial goes through: a small C program built
# with the system compiler into launcher/build/. Without it trials use Node's spawn (slower floor);
# doctor and environment.json say which timing path a run used.
if command -v "${CC:-cc}" >/dev/null 2>&1; then
  mkdir -p launcher/build
  if "${CC:-cc}" -O2 -Wall -std=gnu11 -o launcher/build/sandbench-launch.tmp launcher/sandbench-launch.c; then
    mv launcher/build/sandbench-launch.tmp launcher/build/sandbench-launch
    log "built launcher/build/sandbench-launch"
  else
    log "the launcher did not compile: trials fall back to Node's spawn timing path"
  fi
else
  log "no C compiler: trials use Node's spawn timing path (apt-get install gcc libc6-dev for the native launcher)"
fi

# pVisor: a real backend where PyPI is reachable; never fatal.
if ! command -v pvisor >/dev/null 2>&1; then
  if python3 -m venv /opt/sandbench-pvisor >/dev/null 2>&1 && /opt/sandbench-pvisor/bin/pip install -q pvisor-sandbox; then
    ln -sf /opt/sandbench-pvisor/bin/pvisor /usr/local/bin/pvisor
    ln -sf /opt/sandbench-pvisor/bin/pvisor-replay /usr/local/bin/pvisor-replay
    log "pvisor installed: $(pvisor --version)"
  else
    log "pvisor-sandbox could not be installed; the pvisor arms will be skipped (see sandbench doctor)"
  fi
fi

# CRIU >= 4.2 for podman checkpoints: bookworm's 3.17 (and trixie's 4.1) fail on this kernel, so it is
# built from Debian's sid source package into /opt/sandbench-criu; never fatal (the arm says why).
sh scripts/build-criu.sh || log "CRIU could not be built; checkpoint arms of podman will be unavailable (see sandbench doctor)"

# The agent CLI layers the tests run (codex and opencode for CI's agent spec, Claude Code for the replay
# kind's native-resume tests; from npm, ~1 GB, two or three minutes the first time), cached under
# $SANDBENCH_HOME/agents; never fatal (the agent run then names the layer).
sh scripts/build-agent-layers.sh codex opencode claude || log "an agent layer could not be built; the agent arms will fail with the build's message"

log "building the task image (cached after the first build)"
node bin/sandbench.mjs images build >/dev/null
node bin/sandbench.mjs doctor
