// Switchyard as its image runs it: the sources with their types stripped at build time
// (scripts/strip-types.mjs, the Dockerfile's `sources` stage), so the bench measures the
// processes users deploy. Running the .ts sources instead adds Node's stripper (≈ 37 MB of RSS
// per process) and the first-call cost of stripping each module.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let built: string | undefined;

/**
 * Builds the stripped tree once per bench process (≈ 1 s) in a temp directory removed at exit.
 * Third-party packages are links to the repository's node_modules; `@switchyard/*` link into
 * the tree itself, as npm's workspace links do in the image.
 */
export function imageTree(root: string): string {
  if (built !== undefined) return built;
  const tree = mkdtempSync(join(tmpdir(), 'switchyard-bench-image-'));
  process.once('exit', () => rmSync(tree, { recursive: true, force: true }));
  for (const name of ['package.json', 'bin', 'libs', 'services']) {
    // Tests stay out, as .dockerignore keeps them out of the image (some import bench/ helpers).
    cpSync(join(root, name), join(tree, name), { recursive: true, filter: (source) => !source.endsWith('/node_modules') && !source.endsWith('.test.ts') });
  }
  const modules = join(root, 'node_modules');
  mkdirSync(join(tree, 'node_modules/@switchyard'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry !== '@switchyard') symlinkSync(join(modules, entry), join(tree, 'node_modules', entry));
  }
  for (const entry of readdirSync(join(modules, '@switchyard'))) {
    symlinkSync(readlinkSync(join(modules, '@switchyard', entry)), join(tree, 'node_modules/@switchyard', entry));
  }
  const strip = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', join(root, 'scripts/strip-types.mjs'), tree], { encoding: 'utf8' });
  if (strip.status !== 0) throw new Error(`scripts/strip-types.mjs failed:\n${strip.stderr}`);
  built = tree;
  return tree;
}
