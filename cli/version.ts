/**
 * `sandbench --version`: the package version and the git commit it was built from
 * (harness/provenance/version-info.ts says where the commit comes from); "commit unknown" when
 * neither git nor a build stamp knows, because a version line must never be the thing that breaks.
 */
import type { VersionInfo } from '../harness/provenance/version-info.ts';

export { readVersionInfo, type VersionInfo } from '../harness/provenance/version-info.ts';

/** One line: `sandbench 0.1.0 (commit <sha>)`, `… (commit <sha>, uncommitted changes)` or `… (commit unknown)`. */
export function versionLine(info: VersionInfo): string {
  const commit = info.commit === null ? 'commit unknown' : `commit ${info.commit}${info.dirty ? ', uncommitted changes' : ''}`;
  return `sandbench ${info.version} (${commit})`;
}
