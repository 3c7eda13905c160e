#!/bin/sh
# gVisor's runsc as podman's OCI runtime (`build: {runtime: data/runtimes/runsc-podman.sh}`).
# Under podman, runsc must not set up networking itself: podman gives it a network namespace of the
# host's kind, and runsc refuses "cannot run with network enabled in root network namespace", so the
# sandbox gets --network=none (sandbench's sandboxes have no network but the one service socket).
# --host-uds=open lets the task connect to that bind-mounted Unix socket. The platform is ptrace:
# this runsc (Debian 0.0~20221219) does not know systrap, and guests hang under /dev/kvm here.
# Override with SANDBENCH_RUNSC_PLATFORM; the probe records this file's sha256 as the arm's build.
exec /usr/bin/runsc --network=none --host-uds=open --platform="${SANDBENCH_RUNSC_PLATFORM:-ptrace}" "$@"
