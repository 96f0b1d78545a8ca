// scripts/strip-types.mjs, the image's build step, on small trees of its own: what it rewrites,
// that the output runs on a Node with type stripping turned off, and that it refuses (writing
// nothing) when a specifier would break. The image rehearsal runs it on the real tree.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../../scripts/strip-types.mjs');
const scratches: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'strip-types-'));
  scratches.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function strip(root: string) {
  return spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', SCRIPT, root], { encoding: 'utf8' });
}

function filesOf(root: string, directory = ''): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesOf(root, join(directory, entry.name)) : [join(directory, entry.name)]))
    .sort();
}

const INDEX = `import type { Shape } from './shape.ts';
import {
  area,
  type Unit,
} from './area.ts';
import './register.ts';
export * from './shape.ts';
export { unit } from "./area.ts";

export async function describeShape(shape: Shape, suffix: Unit = 'm²'): Promise<string> {
  const { loud } = await import('./lazy.ts');
  return loud(\`\${area(shape)} \${suffix}\`);
}
`;

const A_PACKAGE = {
  'libs/a/package.json': JSON.stringify({ name: '@x/a', type: 'module', exports: { '.': './src/index.ts', './lazy': './src/lazy.ts' } }),
  'libs/a/src/index.ts': INDEX,
  'libs/a/src/shape.ts': 'export interface Shape { width: number; height: number }\nexport const SHAPES: readonly string[] = [];\n',
  'libs/a/src/area.ts': "import type { Shape } from './shape.ts';\nexport type Unit = string;\nexport const unit: Unit = 'm²';\nexport const area = (shape: Shape): number => shape.width * shape.height;\n",
  'libs/a/src/register.ts': 'globalThis.registered = ((globalThis.registered as number | undefined) ?? 0) + 1;\n',
  'libs/a/src/lazy.ts': 'export const loud = (text: string): string => text.toUpperCase();\n',
};

afterEach(() => {
  for (const root of scratches.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('scripts/strip-types.mjs', () => {
  it('should turn every .ts file into a .js file with the same lines and columns, .ts specifiers and entry points into .js', () => {
    const root = tree({ ...A_PACKAGE, 'bin/tool.js': "import '../libs/a/src/index.js';\n" });
    const result = strip(root);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('5 files → .js');
    expect(filesOf(root)).toEqual(['bin/tool.js', 'libs/a/package.json', 'libs/a/src/area.js', 'libs/a/src/index.js', 'libs/a/src/lazy.js', 'libs/a/src/register.js', 'libs/a/src/shape.js']);

    const output = readFileSync(join(root, 'libs/a/src/index.js'), 'utf8');
    const before = INDEX.split('\n');
    const after = output.split('\n');
    expect(after.length).toBe(before.length);
    // Every identifier a stack trace could name sits at the line and column it had.
    for (const token of ['describeShape', 'loud(', 'area(shape)', 'suffix']) {
      const line = before.findIndex((text) => text.includes(token));
      expect(after[line]?.indexOf(token), token).toBe(before[line]?.indexOf(token));
    }
    expect(output).not.toMatch(/\.ts['"]/);
    expect(output).toContain("from './area.js'");
    expect(output).toContain("import './register.js'");
    expect(output).toContain("export * from './shape.js'");
    expect(output).toContain('from "./area.js"');
    expect(output).toContain("import('./lazy.js')");
    expect(output).not.toContain('Shape,');
    expect(JSON.parse(readFileSync(join(root, 'libs/a/package.json'), 'utf8'))).toMatchObject({ exports: { '.': './src/index.js', './lazy': './src/lazy.js' } });
  });

  it('should give a tree that runs on a Node with type stripping turned off', () => {
    const root = tree(A_PACKAGE);
    expect(strip(root).status).toBe(0);
    const program = `const { describeShape } = await import(${JSON.stringify(join(root, 'libs/a/src/index.js'))}); console.log(await describeShape({ width: 2, height: 3 }), globalThis.registered);`;
    const run = spawnSync(process.execPath, ['--no-experimental-strip-types', '--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('6 M² 1');
  });

  it('should leave the manifest of a package whose sources the image leaves out (a test helper) as it is', () => {
    const helper = JSON.stringify({ name: '@x/testkit', exports: { '.': './src/index.ts' } });
    const root = tree({ ...A_PACKAGE, 'libs/testkit/package.json': helper });
    expect(strip(root).status).toBe(0);
    expect(readFileSync(join(root, 'libs/testkit/package.json'), 'utf8')).toBe(helper);
  });

  it.each([
    ['an import of a file that is not in the tree', { 'libs/a/src/broken.ts': "import { gone } from './gone.ts';\nexport const x = gone;\n" }, './gone.ts is not in the tree'],
    ['a package entry point that is not in the tree', { 'libs/b/package.json': '{"exports":{".":"./src/main.ts"}}', 'libs/b/src/index.ts': 'export {};\n' }, './src/main.ts is not in the tree'],
    ['a .ts specifier it cannot rewrite', { 'libs/a/src/dynamic.ts': 'const name = "lazy";\nexport const load = () => import(`./${name}.ts`);\n' }, 'is left unrewritten'],
    ['syntax that is not erasable', { 'libs/a/src/enum.ts': 'export enum Colour { Red }\n' }, 'enum.ts'],
  ])('should refuse %s, and write nothing', (_name, extra, message) => {
    const root = tree({ ...A_PACKAGE, ...extra });
    const before = filesOf(root).map((path) => [path, readFileSync(join(root, path), 'utf8')]);
    const result = strip(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(message);
    expect(filesOf(root).map((path) => [path, readFileSync(join(root, path), 'utf8')])).toEqual(before);
    expect(existsSync(join(root, 'libs/a/src/index.js'))).toBe(false);
  });

  it('should print its usage and exit 2 without a directory', () => {
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: node scripts/strip-types.mjs <dir>');
  });
});
