#!/bin/sh
# A throwaway Slurm cluster on this machine, for the fleet tests and for trying `sandbench fleet slurm`
# before a real cluster: munged + slurmctld + K slurmd nodes on this one host (each slurmd its own
# NodeName, port, spool, pid and log, so array tasks land on distinct node names = distinct hosts for
# merge). No systemd: every daemon is started here with its files under one scratch directory.
# Facts and traps this relies on: data/slurm/one-node-cluster.md.
#
#   scripts/start-slurm.sh [--nodes K] [--dir DIR] [--port P]   start; prints `export SLURM_CONF=…`
#   scripts/start-slurm.sh --stop [--dir DIR] [--purge]          cancel jobs, stop every daemon, verify
#
# Needs root (slurmd runs jobs as their submitter) and the Debian packages slurm-wlm and munge
# (scripts/setup.sh installs them). DIR defaults to ${TMPDIR:-/tmp}/sandbench-slurm.
set -eu

nodes=1
dir="${TMPDIR:-/tmp}/sandbench-slurm"
port=6817
action=start
purge=0
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --stop) action=stop; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "start-slurm: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

log() { printf 'start-slurm: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

case "$nodes" in ''|*[!0-9]*) die "--nodes $nodes: expected a whole number ≥ 1" ;; esac
[ "$nodes" -ge 1 ] || die "--nodes $nodes: expected a whole number ≥ 1"
case "$port" in ''|*[!0-9]*) die "--port $port: expected a TCP port" ;; esac
case "$dir" in /*) ;; *) dir="$(pwd)/$dir" ;; esac

conf="$dir/slurm.conf"
socket="$dir/munge/munge.socket"
export SLURM_CONF="$conf"

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { [ -f "$1" ] && cat "$1" 2>/dev/null || true; }

# Wait up to $1 tenths of a second for the command "$2…" to succeed.
wait_for() {
  tenths="$1"; shift
  while ! "$@" >/dev/null 2>&1; do
    tenths=$((tenths - 1))
    [ "$tenths" -gt 0 ] || return 1
    sleep 0.1
  done
}

# SIGTERM one daemon by its pid file and wait (up to 30 s) until it is gone.
stop_pidfile() {
  pid="$(pid_of "$1")"
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  i=300
  while alive "$pid"; do
    i=$((i - 1))
    [ "$i" -gt 0 ] || { log "$1: pid $pid ignored SIGTERM for 30 s; sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; sleep 0.5; break; }
    sleep 0.1
  done
}

# True when no job step runs on this machine (slurmstepd has no option naming its cluster).
no_steps() { ! pgrep -x slurmstepd >/dev/null 2>&1; }

# True when no slurmctld/slurmd of this cluster is alive.
slurm_gone() {
  for pidfile in "$dir"/run/slurmctld.pid "$dir"/run/slurmd-*.pid; do
    [ -e "$pidfile" ] || continue
    alive "$(pid_of "$pidfile")" && return 1
  done
  return 0
}

stop_cluster() {
  [ -f "$conf" ] || { log "no cluster at $dir (no slurm.conf); nothing to stop"; return 0; }
  ctld="$(pid_of "$dir/run/slurmctld.pid")"
  if alive "$ctld"; then
    # Killing slurmd under a running job leaves slurmstepd and the job alive: cancel and wait first.
    jobs="$(squeue -h -o %i 2>/dev/null || true)"
    if [ -n "$jobs" ]; then
      log "cancelling jobs: $(echo $jobs)"
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      wait_for 900 sh -c '[ -z "$(squeue -h -o %i 2>/dev/null)" ]' || log "jobs still listed after 90 s: $(squeue -h 2>&1 | head -5)"
    fi
    # A job leaves squeue while its slurmstepd is still finishing (seen: ~1 s after the last job);
    # stopping slurmd first would orphan it.
    wait_for 300 no_steps || log "slurmstepd still running 30 s after the queue emptied: $(pgrep -a -x slurmstepd | tr '\n' ' ')"
  fi
  # `scontrol shutdown` stops slurmctld and every slurmd in about 2 s (SIGTERM one by one takes 5–10 s);
  # SIGTERM by pid file is the fallback for whatever it missed.
  if alive "$ctld"; then
    scontrol shutdown >/dev/null 2>&1 || true
    wait_for 150 slurm_gone || log "scontrol shutdown left daemons running; stopping them by pid file"
  fi
  for pidfile in "$dir"/run/slurmd-*.pid; do [ -e "$pidfile" ] && stop_pidfile "$pidfile"; done
  stop_pidfile "$dir/run/slurmctld.pid"
  stop_pidfile "$dir/run/munged.pid"
  # Verify: no daemon of ours, and no job step (slurmstepd) left anywhere on the machine.
  remaining=""
  for pidfile in "$dir"/run/*.pid; do
    [ -e "$pidfile" ] || continue
    pid="$(pid_of "$pidfile")"
    alive "$pid" && remaining="$remaining $(basename "$pidfile" .pid)=$pid"
  done
  wait_for 100 no_steps || true
  steps="$(pgrep -x slurmstepd 2>/dev/null | tr '\n' ' ' || true)"
  [ -z "$steps" ] || remaining="$remaining slurmstepd=$steps"
  [ -z "$remaining" ] || die "still running after --stop:$remaining (see $dir/log)"
  rm -f "$dir"/run/*.pid
  if [ "$purge" = 1 ]; then rm -rf "$dir"; log "stopped; removed $dir"; else log "stopped; logs kept in $dir/log (--purge removes $dir)"; fi
}

if [ "$action" = stop ]; then stop_cluster; exit 0; fi

# ---- start ----
[ "$(id -u)" = 0 ] || die "needs root: slurmd starts every job as its submitting user"
for tool in munged mungekey munge slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found: apt-get install -y slurm-wlm munge (or scripts/setup.sh --with slurm)"
done
if alive "$(pid_of "$dir/run/slurmctld.pid")" || alive "$(pid_of "$dir/run/munged.pid")"; then
  die "a cluster is already running from $dir: scripts/start-slurm.sh --stop --dir $dir first"
fi
last=$((port + nodes))
if command -v ss >/dev/null 2>&1; then
  busy="$(ss -Hltn 2>/dev/null | awk -v lo="$port" -v hi="$last" '{ n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p <= hi) print p }' | sort -u | tr '\n' ' ')"
  [ -z "$busy" ] || die "TCP port(s) $busy already in use (slurmctld takes $port, the nodes $((port + 1))..$last): choose another --port"
fi

host="$(hostname -s)"
getent hosts "$host" >/dev/null 2>&1 || die "hostname $host does not resolve (SlurmctldHost must): add it to /etc/hosts"

# The dirs must be world-reachable: munged refuses a socket whose directory, or any directory above
# it, others cannot search ("Socket is inaccessible").
mkdir -p "$dir" "$dir/munge" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
chmod 755 "$dir" "$dir/munge"
up="$(dirname "$dir")"
while [ "$up" != / ]; do
  [ -n "$(find "$up" -maxdepth 0 -perm -o+x)" ] || die "$up is not searchable by others (munged needs every directory above its socket to be): chmod o+x $up, or choose another --dir"
  up="$(dirname "$up")"
done
rm -f "$dir"/run/*.pid

# A fresh key per cluster: nothing outside this directory can talk to it.
[ -f "$dir/munge/munge.key" ] || mungekey -c -k "$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"

# Node lines from what slurmd detects here (RealMemory above it puts the node in INVAL).
detected="$(slurmd -C | head -n 1)"
value() { printf '%s\n' "$detected" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
cpus="$(value CPUs)"
memory="$(value RealMemory)"
[ -n "$cpus" ] && [ -n "$memory" ] || die "slurmd -C gave no CPUs/RealMemory: $detected"
if [ "$nodes" = 1 ]; then
  # One node: the detected topology as is.
  shape="$(printf '%s\n' "$detected" | cut -d' ' -f2-)"
else
  # K nodes share this host's CPUs and memory; each claims an equal share (at least one CPU).
  per_cpu=$((cpus / nodes)); [ "$per_cpu" -ge 1 ] || per_cpu=1
  shape="CPUs=$per_cpu RealMemory=$((memory / nodes))"
fi

{
  echo "# Written by scripts/start-slurm.sh for a throwaway test cluster ($(date -u +%FT%TZ))."
  echo "ClusterName=sandbench"
  echo "SlurmctldHost=$host"
  echo "SlurmctldPort=$port"
  echo "SlurmUser=root"
  echo "SlurmdUser=root"
  # Our own munge socket; cred_expire=10 lets a requeued job start again within seconds (default 120).
  echo "AuthType=auth/munge"
  echo "AuthInfo=socket=$socket,cred_expire=10"
  echo "CredType=cred/munge"
  echo "StateSaveLocation=$dir/state"
  echo "SlurmdSpoolDir=$dir/spool/%n"
  echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
  echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
  echo "SlurmctldLogFile=$dir/log/slurmctld.log"
  echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
  echo "SlurmctldDebug=info"
  echo "SlurmdDebug=info"
  # CR_Core: with CR_Core_Memory and no DefMemPerCPU every job asks for the whole node's memory.
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core"
  # linuxproc + task/none: no cgroups (the harness's own cgroup budgets stay its own), and no CPU
  # binding, since the K nodes are slices of one host whose logical CPU 0 would all be the same core.
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "MpiDefault=none"
  echo "SwitchType=switch/none"
  echo "ReturnToService=2"
  echo "MailProg=/bin/true"
  echo "JobCompType=jobcomp/filetxt"
  echo "JobCompLoc=$dir/log/jobcomp.txt"
  echo "MinJobAge=300"
  echo "KillWait=30"
  i=1
  while [ "$i" -le "$nodes" ]; do
    echo "NodeName=$host-$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + i)) $shape State=UNKNOWN"
    i=$((i + 1))
  done
  echo "PartitionName=bench Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >"$conf"

fail_start() {
  log "$1"
  for file in "$dir"/log/*.log; do [ -e "$file" ] && { log "--- $file"; tail -n 15 "$file" >&2; }; done
  stop_cluster || true
  exit 1
}

munged --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/run/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" || fail_start "munged did not start"
wait_for 100 munge -n -S "$socket" || fail_start "munged does not answer on $socket"

slurmctld -f "$conf" || fail_start "slurmctld did not start"
wait_for 200 sh -c 'scontrol ping | grep -q UP' || fail_start "slurmctld does not answer scontrol ping"

i=1
while [ "$i" -le "$nodes" ]; do
  slurmd -f "$conf" -N "$host-$i" || fail_start "slurmd $host-$i did not start"
  i=$((i + 1))
done
all_idle() { [ "$(sinfo -h -N -o '%N %T' | grep -c ' idle$')" -ge "$nodes" ]; }
wait_for 300 all_idle || fail_start "nodes not idle after 30 s: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"

log "cluster up in $dir: $(sinfo -h -N -o '%N' | tr '\n' ' ')(partition bench); stop with: $0 --stop --dir $dir"
echo "export SLURM_CONF=$conf"
