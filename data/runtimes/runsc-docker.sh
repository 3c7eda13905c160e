#!/bin/sh
# gVisor's runsc as dockerd's OCI runtime (`build: {runtime: data/runtimes/runsc-docker.sh}`): the
# flags of runsc-podman.sh (no network of its own, the service socket through --host-uds=open, the
# ptrace platform; SANDBENCH_RUNSC_PLATFORM overrides it), plus TMPDIR.
# sandbench's private dockerd runs with TMPDIR in its own state dir under $HOME (mode 0700), and runsc
# inherits it: its sandbox process, which drops to uid 65534 (nobody), builds its chroot under
# $TMPDIR and died with "error setting up chroot: ... Open(<TMPDIR>): permission denied", which
# docker reported as "cannot read client sync file: waiting for sandbox to start: EOF".
export TMPDIR=/tmp
exec /usr/bin/runsc --network=none --host-uds=open --platform="${SANDBENCH_RUNSC_PLATFORM:-ptrace}" "$@"
