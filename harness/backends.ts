/**
 * The backend names sandbench knows. Kept in harness/ (not executors/) so the spec schema, and
 * through it analysis and reports, never import the executor layer.
 */
export const BACKENDS = ['host', 'staged', 'podman', 'docker', 'qemu-microvm', 'qemu-q35', 'pvisor'] as const;
export type BackendName = (typeof BACKENDS)[number];
