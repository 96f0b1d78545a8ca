import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This test file's own temporary directory, made on first use. */
let root: string | undefined;

/**
 * A fresh directory for a test's files (configs mostly), inside one directory per test file
 * that the e2e project's setup file removes when the file's tests are done: repeated runs
 * leave nothing behind in the system's temporary directory.
 */
export function scratchDirectory(name: string): string {
  root ??= mkdtempSync(join(tmpdir(), 'switchyard-e2e-'));
  return mkdtempSync(join(root, `${name}-`));
}

/** Writes a config file into a fresh scratch directory and returns its path. */
export function writeConfig(text: string): string {
  const path = join(scratchDirectory('config'), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

export function removeScratch(): void {
  if (root === undefined) return;
  rmSync(root, { recursive: true, force: true });
  root = undefined;
}
