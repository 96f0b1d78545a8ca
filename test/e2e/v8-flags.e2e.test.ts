// bin/v8-flags.js: the V8 settings every Switchyard process applies before its modules load.
// What they buy is measured by the bench (docs/performance.md: RSS per open stream); a probe of
// V8's pretenuring decisions inside a test run proved timing-dependent, so this checks what can
// go wrong silently: `v8.setFlagsFromString` ignores a flag V8 does not know.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const { V8_FLAGS } = (await import(pathToFileURL(join(root, 'bin/v8-flags.js')).href)) as { V8_FLAGS: string[] };

function nodeWith(flags: string[]) {
  return spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8' });
}

describe('bin/v8-flags.js', () => {
  it('should set only flags this Node’s V8 knows (an unknown one would be ignored without a word)', () => {
    expect(V8_FLAGS).toContain('--no-allocation-site-pretenuring');
    for (const flag of V8_FLAGS) {
      const run = nodeWith([flag]);
      expect({ flag, status: run.status, stderr: run.stderr }).toEqual({ flag, status: 0, stderr: '' });
    }
    // The check itself can fail: a misspelt flag is refused on the command line.
    expect(nodeWith(['--no-allocation-site-pretenurin']).status).not.toBe(0);
  });

  it('should be the first thing bin/switchyard.js imports, before any of the gateway loads', () => {
    const imports = [...readFileSync(join(root, 'bin/switchyard.js'), 'utf8').matchAll(/\bimport\s*(?:\(\s*)?['"]([^'"]+)['"]/g)].map((match) => match[1]);
    expect(imports[0]).toBe('./v8-flags.js');
  });
});
