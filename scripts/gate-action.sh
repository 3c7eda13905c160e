#!/usr/bin/env bash
# The steps of the sandbench gate action (action.yml), in one script so they run the same way in a
# workflow and locally (test/gate/gate-action.test.ts runs it end to end). It runs the spec's two
# arms interleaved in one run, gates the candidate against the baseline, writes JUnit and the job
# summary, and reports the verdict and the gate's exit code as step outputs.
#
# Inputs (environment):
#   SANDBENCH_GATE_SPEC       the spec (required); both arms must be in it
#   SANDBENCH_GATE_ARMS       "<baseline-arm>,<candidate-arm>", e.g. "staged:old,staged:new" (required)
#   SANDBENCH_GATE_THRESHOLD  allowed slowdown (default 5%)
#   SANDBENCH_GATE_STATISTIC  p50 (default), p90 or p95
#   SANDBENCH_GATE_METRIC     metric(s) to gate, comma-separated (default: the spec's compare metrics)
#   SANDBENCH_GATE_TRIALS     override the spec's trials (optional)
#   SANDBENCH_GATE_JUNIT_INCONCLUSIVE  failure (default) or skipped
#   SANDBENCH_GATE_OUT        output directory (default runs/gate): bundle/, gate/, junit.xml, gate.json
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY  set by GitHub Actions; without them outputs go to
#                             <out>/outputs.txt and the summary to <out>/summary.md
# Exit: the gate's code (0 pass, 1 regression, 2 inconclusive, 3 invalid), or run's when the run
# itself failed (verdict "run-failed").
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sandbench=(node "$here/../bin/sandbench.mjs")
spec="${SANDBENCH_GATE_SPEC:?SANDBENCH_GATE_SPEC: give the spec file}"
arms="${SANDBENCH_GATE_ARMS:?SANDBENCH_GATE_ARMS: give <baseline-arm>,<candidate-arm>}"
baseline="${arms%%,*}"
candidate="${arms#*,}"
if [[ -z "$baseline" || -z "$candidate" || "$candidate" == *,* || "$arms" != *,* ]]; then
  echo "sandbench gate action: SANDBENCH_GATE_ARMS=\"$arms\": expected exactly two arms, <baseline-arm>,<candidate-arm>" >&2
  exit 2
fi
out="${SANDBENCH_GATE_OUT:-runs/gate}"
outputs="${GITHUB_OUTPUT:-$out/outputs.txt}"
mkdir -p "$out"

set_outputs() { # verdict exit-code
  printf 'verdict=%s\nexit-code=%s\n' "$1" "$2" >>"$outputs"
  echo "sandbench gate action: verdict $1 (exit $2); bundle $out/bundle" >&2
}

run_args=(run "$spec" --arms "$arms" --require-all --out "$out/bundle")
[[ -n "${SANDBENCH_GATE_TRIALS:-}" ]] && run_args+=(--trials "$SANDBENCH_GATE_TRIALS")
"${sandbench[@]}" "${run_args[@]}"
run_code=$?
if [[ $run_code -ne 0 ]]; then
  set_outputs run-failed "$run_code"
  exit "$run_code"
fi

gate_args=(gate "$out/bundle" --baseline-arm "$baseline" --candidate-arm "$candidate"
  --threshold "${SANDBENCH_GATE_THRESHOLD:-5%}" --statistic "${SANDBENCH_GATE_STATISTIC:-p50}"
  --out "$out/gate" --junit "$out/junit.xml" --junit-inconclusive "${SANDBENCH_GATE_JUNIT_INCONCLUSIVE:-failure}" --json)
[[ -n "${SANDBENCH_GATE_METRIC:-}" ]] && gate_args+=(--metric "$SANDBENCH_GATE_METRIC")
# In Actions the gate appends to $GITHUB_STEP_SUMMARY itself; elsewhere it writes a file.
[[ -z "${GITHUB_STEP_SUMMARY:-}" ]] && gate_args+=(--summary-md "$out/summary.md")
"${sandbench[@]}" "${gate_args[@]}" >"$out/gate.json"
gate_code=$?
verdict="$(node -e 'try { process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).verdict) } catch { process.stdout.write("error") }' "$out/gate.json")"
set_outputs "$verdict" "$gate_code"
exit "$gate_code"
