import { execFileSync } from 'node:child_process';

/**
 * Mounts a tmpfs of `size` (as mount's `size=` takes it: `256k`) on the folder `dir`: a real full
 * disk for a test. Returns why it could not (mounting needs root; CI runs as root), or undefined
 * once it is mounted; {@link unmountTmpfs} takes it away.
 */
export function mountTmpfs(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs (needs root): ${String(error).split('\n')[0] ?? ''}`;
  }
}

/** Unmounts what {@link mountTmpfs} mounted on `dir`. */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', [dir]);
}
