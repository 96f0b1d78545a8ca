#!/usr/bin/env node
// Turns a copy of Switchyard's TypeScript tree into the JavaScript one the image runs:
//
//   node scripts/strip-types.mjs <dir>     # in place: every .ts under <dir>/bin, libs, services
//
// Development runs the .ts sources directly (Node's type stripping). A process that loads even
// one .ts module also loads Node's stripper (a wasm build of SWC) and keeps it, ≈ 18 MB of RSS,
// plus each module's source twice; the image does the same stripping once, at build time, with
// the same function Node uses at run time (`module.stripTypeScriptTypes`, strip mode). Strip mode
// replaces types with blanks, so every line and column stays where it was: a production stack
// trace points into the sources as they are in the repository.
//
// The only other change is the specifiers: `./x.ts` → `./x.js` in import and export
// declarations and in `import()` with a literal argument, and `.ts` → `.js` in the workspace
// packages' `exports`. Every rewritten relative specifier must name a file of the tree, and no
// `.ts` specifier may be left, or the script fails; the image rehearsal
// (test/deploy/image.e2e.test.ts) then starts every target from the result.
//
// Dependency-free on purpose: it runs in the image's build stage, where only Node is installed.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { argv, exit, stderr, stdout } from 'node:process';

/** `from '…'`, `import '…'` and `import('…')`, the only places a module specifier appears in our code. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)(['"])([^'"\n]+)\.ts\2/g;
const TOP_LEVEL = ['bin', 'libs', 'services'];

function sourcesUnder(directory) {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Manifests of the workspace packages the tree ships: the image leaves test helpers' sources out (.dockerignore). */
function shippedManifestsUnder(root) {
  return ['libs', 'services'].flatMap((group) => {
    const directory = join(root, group);
    if (!existsSync(directory)) return [];
    return readdirSync(directory)
      .filter((name) => existsSync(join(directory, name, 'package.json')) && existsSync(join(directory, name, 'src')))
      .map((name) => join(directory, name, 'package.json'));
  });
}

/** `exports`, `main` and `bin` with `.ts` values made `.js`: the new text and how many values changed. */
function rewriteManifest(path, sourceSet, problems) {
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  let changed = 0;
  const rewrite = (value) => {
    if (typeof value === 'string') {
      if (!value.endsWith('.ts')) return value;
      changed++;
      if (!sourceSet.has(resolve(dirname(path), value))) problems.push(`${path}: ${value} is not in the tree`);
      return `${value.slice(0, -3)}.js`;
    }
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rewrite(inner)]));
    return value;
  };
  for (const field of ['exports', 'main', 'bin']) if (field in manifest) manifest[field] = rewrite(manifest[field]);
  return { path, code: `${JSON.stringify(manifest, null, 2)}\n`, changed };
}

function stripTree(root) {
  const sources = TOP_LEVEL.flatMap((name) => sourcesUnder(join(root, name)));
  const sourceSet = new Set(sources);
  const problems = [];
  let specifiers = 0;
  const outputs = sources.map((path) => {
    let code;
    try {
      code = stripTypeScriptTypes(readFileSync(path, 'utf8'), { mode: 'strip' });
    } catch (error) {
      problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    code = code.replace(SPECIFIER, (_match, lead, quote, stem) => {
      specifiers++;
      if (stem.startsWith('.') && !sourceSet.has(resolve(dirname(path), `${stem}.ts`))) problems.push(`${path}: ${stem}.ts is not in the tree`);
      return `${lead}${quote}${stem}.js${quote}`;
    });
    // A .ts specifier this script did not recognise (a template literal, a require) would fail at run time.
    const left = /['"`][^'"`\n]*\.ts['"`]/.exec(code.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''));
    if (left !== null) problems.push(`${path}: ${left[0]} is left unrewritten`);
    return { path, code };
  });
  const manifests = shippedManifestsUnder(root).map((path) => rewriteManifest(path, sourceSet, problems));
  // Nothing is written unless everything checked out: a failed run leaves the tree as it was.
  if (problems.length > 0) throw new Error(`strip-types: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  for (const output of outputs) {
    if (output === undefined) continue;
    writeFileSync(`${output.path.slice(0, -3)}.js`, output.code);
    rmSync(output.path);
  }
  for (const manifest of manifests) writeFileSync(manifest.path, manifest.code);
  return { files: sources.length, specifiers, manifests: manifests.length, entries: manifests.reduce((sum, manifest) => sum + manifest.changed, 0) };
}

const root = argv[2];
if (root === undefined || !existsSync(root) || !statSync(root).isDirectory()) {
  stderr.write('usage: node scripts/strip-types.mjs <dir>   (strips the .ts files under <dir>/bin, libs and services in place)\n');
  exit(2);
}
try {
  const result = stripTree(resolve(root));
  stdout.write(`strip-types: ${result.files} files → .js (${result.specifiers} specifiers), ${result.entries} package entry points in ${result.manifests} manifests under ${resolve(root)}\n`);
} catch (error) {
  stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  exit(1);
}
