// A trial's controls (CPU pinning, budget cgroups) are applied by the spawn path: executors/launch/launch-controls.ts.

/** The PATH every sandbox sees, so host and sandboxes resolve the same tool names. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
