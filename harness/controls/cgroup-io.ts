/** File operations on a cgroup tree, behind an interface so the v2 logic runs against a temp directory in tests. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';

export interface CgroupIo {
  read(path: string): string | null;
  write(path: string, value: string): void;
  exists(path: string): boolean;
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** Names of sub-directories (child cgroups). */
  subdirs(path: string): string[];
}

export const nodeCgroupIo: CgroupIo = {
  read(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  },
  // cgroupfs wants one write() per value; writeFileSync does exactly that for short strings.
  write: (path, value) => writeFileSync(path, value),
  exists: (path) => existsSync(path),
  mkdir: (path) => mkdirSync(path),
  rmdir: (path) => rmdirSync(path),
  subdirs(path) {
    try {
      return readdirSync(path).filter((name) => {
        try {
          return statSync(`${path}/${name}`).isDirectory();
        } catch {
          return false;
        }
      });
    } catch {
      return [];
    }
  },
};
