/**
 * A minimal writer for the "newc" cpio format the kernel unpacks as an initramfs
 * (Documentation/driver-api/early-userspace/buffer-format.rst). Written here rather than via
 * `cpio` so the archive is byte-reproducible (fixed mtimes, uid 0) and can hold /dev/console
 * without mknod privileges.
 */
export type CpioEntry =
  | { kind: 'dir'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; data: Buffer }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'chardev'; path: string; mode: number; major: number; minor: number };

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;

const hex8 = (value: number) => value.toString(16).padStart(8, '0');
const pad4 = (length: number) => Buffer.alloc((4 - (length % 4)) % 4);

function header(fields: { ino: number; mode: number; nlink: number; size: number; rdevMajor: number; rdevMinor: number; nameSize: number }): Buffer {
  const values = [fields.ino, fields.mode, 0, 0, fields.nlink, 0, fields.size, 0, 0, fields.rdevMajor, fields.rdevMinor, fields.nameSize, 0];
  return Buffer.from(`070701${values.map(hex8).join('')}`, 'ascii');
}

function record(ino: number, path: string, mode: number, nlink: number, data: Buffer, rdev: [number, number] = [0, 0]): Buffer {
  const name = Buffer.from(`${path}\0`, 'utf8');
  const head = header({ ino, mode, nlink, size: data.length, rdevMajor: rdev[0], rdevMinor: rdev[1], nameSize: name.length });
  const headAndName = Buffer.concat([head, name]);
  return Buffer.concat([headAndName, pad4(headAndName.length), data, pad4(data.length)]);
}

/** Serialize entries in the given order (parents must precede children); mtime 0, uid/gid 0. */
export function writeCpioNewc(entries: readonly CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  entries.forEach((entry, index) => {
    const ino = index + 1;
    switch (entry.kind) {
      case 'dir':
        parts.push(record(ino, entry.path, S_IFDIR | entry.mode, 2, Buffer.alloc(0)));
        break;
      case 'file':
        parts.push(record(ino, entry.path, S_IFREG | entry.mode, 1, entry.data));
        break;
      case 'symlink':
        parts.push(record(ino, entry.path, S_IFLNK | 0o777, 1, Buffer.from(entry.target, 'utf8')));
        break;
      case 'chardev':
        parts.push(record(ino, entry.path, S_IFCHR | entry.mode, 1, Buffer.alloc(0), [entry.major, entry.minor]));
        break;
    }
  });
  parts.push(record(0, 'TRAILER!!!', 0, 1, Buffer.alloc(0)));
  return Buffer.concat(parts);
}
