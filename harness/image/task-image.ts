/**
 * The one task image every backend runs. `digest` is the sha256 of the deterministic rootfs tar;
 * it equals the layer diffID after `podman import` / `docker import`, so one digest names the image
 * on every backend (backend-notes: "Task root filesystem").
 */
export interface TaskImage {
  /** `sha256:<hex>` of rootfs.tar. */
  digest: string;
  /** Directory holding every artefact derived from this image (cache entry). */
  dir: string;
  /** The deterministic tar (input of podman/docker import and of VM disk builds). */
  tarPath: string;
  /** The unpacked root filesystem, used read-only as the staged sandbox's root. */
  rootfsDir: string;
  /** What the image was built from, recorded in provenance. */
  inputs: TaskImageInputs;
}

export interface TaskImageInputs {
  suite: string;
  mirror: string;
  packages: string[];
  sourceDateEpoch: number;
  builderScriptSha256: string;
}
