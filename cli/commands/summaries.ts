/**
 * One line per command for the top-level `sandbench --help`: printing it must not load every command's
 * module (vega, the executors, every kind), so the usage and description live here too.
 * test/architecture/command-summaries.test.ts fails when one drifts from its command's registration.
 */
export interface CommandSummary {
  /** Argument usage as commander prints it, e.g. '<spec>' or '[bundles...]'. */
  args: string;
  /** Whether the command has options (commander prints ' [options]'). */
  options: boolean;
  description: string;
}

export const COMMAND_SUMMARIES: Record<string, CommandSummary> = {
  doctor: { args: "", options: true, description: "One line per backend: available or not, version, and the reason and fix when not" },
  init: { args: "[kind]", options: true, description: "Write a commented starter spec for a kind (default shell-ready) to stdout or --out <file>; edit it, then sandbench run it" },
  schema: { args: "[name]", options: false, description: "Print the JSON Schema of the spec, a --json output or a bundle file (schemas/*.json); without a name, list them" },
  plan: { args: "<spec>", options: true, description: "Print the seeded schedule a spec would run, without running anything (same seed → identical output)" },
  run: { args: "[spec]", options: true, description: "Run an experiment spec: seeded interleaved trials on real backends → a verifiable bundle" },
  verify: { args: "<bundle>", options: true, description: "Re-hash every file of a bundle against manifest.json, and with --signer check its signatures; exit 0 when intact, 1 naming each changed file or failed signature" },
  sign: { args: "<bundle>", options: true, description: "Sign a bundle's manifest.json with an SSH key (ssh-keygen -Y sign, namespace sandbench-bundle) into manifest.json.sig; `verify --signer` checks it" },
  images: { args: "", options: false, description: "The task image every backend runs" },
  report: { args: "<bundle>", options: false, description: "Write report.html (self-contained, inline SVG plots) and report.md (headline tables, methods in <details>) for a finished bundle" },
  compare: { args: "<baseline> <candidate>", options: true, description: "Compare two bundles arm by arm and metric by metric: candidate/baseline ratios of medians with bootstrap CIs; writes comparison.csv, comparison.md, comparison.html" },
  gate: { args: "[bundles...]", options: true, description: "Non-inferiority regression gate on the ratio candidate / baseline (P50, or --statistic p90|p95): exit 0 pass, 1 regression, 2 inconclusive, 3 invalid (missing data, failures, unmatched arms, environment mismatch, separated clusters, undefined ratio). Recommended for CI: one run with both builds as arms, --baseline-arm A --candidate-arm B (interleaved, run offsets cancel)." },
  power: { args: "<pilot-bundle>", options: true, description: "Blocks per run needed to detect an effect (or pass a non-inferiority gate at it), per arm and metric, from a pilot bundle; the formula the gate uses for \"≈N more blocks\"" },
  reproduce: { args: "[bundle]", options: true, description: "Side by side with the published pVisor study: published value, ours with CI, ratios between backends, whether each published ordering holds; lists unmatched rows with why. --campaign runs every spec with published counterparts and joins them all" },
  analyze: { args: "<bundle>", options: true, description: "Regenerate samples, summary, diagnostics, comparisons and evidence CSVs of a bundle from its journal (byte-identical on every run)" },
  stats: { args: "<samples.csv>", options: true, description: "Summaries and bootstrap comparisons of any long-format CSV (one row per measurement), e.g. timings measured elsewhere" },
  replay: { args: "", options: false, description: "Continuation prefixes from agent-native trajectories, without executing any tool" },
  clean: { args: "", options: true, description: "Find and remove what crashed runs left behind (processes, VMs, containers, mounts, cgroups, dockerd, temp dirs), by sandbench names/labels only; live runs are never touched" },
  fleet: { args: "", options: false, description: "Run one campaign across a fleet of machines (Kubernetes Indexed Jobs or Slurm job arrays); docs/fleet.md" },
  merge: { args: "<bundles...>", options: true, description: "Merge the shard bundles of one plan (sandbench run --shard i/N) into one bundle analysed with host as a block; refuses (exit 3) shards of different plans" },
  model: { args: "", options: false, description: "The deterministic scripted model service agent CLIs talk to" },
  serve: { args: "", options: false, description: "Serve SandboxFusion-compatible endpoints on 127.0.0.1 backed by sandbench sandboxes" },
  capacity: { args: "<spec>", options: true, description: "Bisect the largest N at which every batch of a density spec passes on one backend; prints the bracket and the batches that decided it" },
  conformance: { args: "", options: true, description: "Check backends against the conformance properties (ready marker and exit code, staging claim, isolation, cleanup, timeout, budget membership, service reachability, timing path): one pass/FAIL/n/a line per property with the reason; exit 0 when all pass, 1 when any fails" },
};
