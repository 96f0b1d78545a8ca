import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

/**
 * A fresh directory for a bench process's files (target configs, load scripts and bodies),
 * inside one directory per process that is removed when the process exits.
 */
export function scratchDirectory(name: string): string {
  if (root === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    root = made;
  }
  return mkdtempSync(join(root, `${name}-`));
}
