# Sourced (POSIX sh) by every in-sandbox entry script that talks to the model service: run-agent.sh,
# run-rollout-agent.sh, the replay kind's continue.sh and its CLI-resume scripts. The caller sets
# `support` to the directory holding this file and forwarder.py (each kind's support mount copies
# both: services/model/index.ts MODEL_ENDPOINT_FILES).
#
#   model_endpoint SCRATCH_PARENT
# sets `url` to the service's base URL: $SANDBENCH_SERVICE_URL when the executor gives one (a
# reachable TCP listener), else it starts forwarder.py on 127.0.0.1:18080 towards
# $SANDBENCH_SERVICE_SOCKET (its output in a fresh dir below SCRATCH_PARENT, `fwd_dir`) and waits for
# FORWARDER_READY. `fwd` is the forwarder's pid (empty when none). Returns 1, with
# `SANDBENCH_AGENT_ERROR forwarder died: ...` on stderr and its dir removed, when the forwarder dies
# before it is ready; the caller picks its own exit code. `model_endpoint_stop` ends the forwarder.
fwd= fwd_dir=
model_endpoint() {
  fwd= fwd_dir=
  if [ -n "${SANDBENCH_SERVICE_URL:-}" ]; then
    url=$SANDBENCH_SERVICE_URL
    return 0
  fi
  fwd_dir=$(mktemp -d "$1/model-fwd.XXXXXX") || return 1
  python3 "$support/forwarder.py" --listen 127.0.0.1:18080 --socket "$SANDBENCH_SERVICE_SOCKET" > "$fwd_dir/forwarder.out" 2>&1 &
  fwd=$!
  until grep -q FORWARDER_READY "$fwd_dir/forwarder.out" 2> /dev/null; do
    if ! kill -0 "$fwd" 2> /dev/null; then
      echo "SANDBENCH_AGENT_ERROR forwarder died: $(cat "$fwd_dir/forwarder.out")" >&2
      rm -rf "$fwd_dir"
      fwd= fwd_dir=
      return 1
    fi
    sleep 0.005
  done
  url=http://127.0.0.1:18080
}

model_endpoint_stop() {
  [ -n "$fwd" ] && kill "$fwd" 2> /dev/null
  [ -n "$fwd_dir" ] && rm -rf "$fwd_dir"
  fwd= fwd_dir=
}
