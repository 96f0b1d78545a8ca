// npm ci refuses a lockfile whose packages list optional dependencies the lockfile does not
// contain. The registry our CI reaches lacks some platform builds (msgpackr-extract's darwin,
// win32 and linux-arm binaries, optional speed-ups of bullmq's msgpackr), so `npm install`
// leaves them out of package-lock.json and `npm ci` then fails. This drops such dangling
// optional edges. Run it after every `npm install`: node scripts/prune-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const pruned = [];

/** Where npm would resolve `dependency` from the package at `path` (nearest node_modules upwards). */
function resolves(path, dependency) {
  let base = path;
  for (;;) {
    if (`${base === '' ? '' : `${base}/`}node_modules/${dependency}` in packages) return true;
    if (base === '') return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

for (const [path, node] of Object.entries(packages)) {
  for (const dependency of Object.keys(node.optionalDependencies ?? {})) {
    if (!resolves(path, dependency)) {
      delete node.optionalDependencies[dependency];
      pruned.push(`${path} → ${dependency}`);
    }
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(pruned.length === 0 ? 'lockfile: nothing to prune' : `lockfile: pruned ${pruned.length} unavailable optional edges:\n  ${pruned.join('\n  ')}`);
