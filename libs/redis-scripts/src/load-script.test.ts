import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScript } from './load-script.ts';

function scripts(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'redis-scripts-'));
  mkdirSync(join(directory, 'includes'));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(directory, name), source);
  return directory;
}

describe('loadScript', () => {
  const directory = scripts({
    'includes/helpers.lua': 'local function twice(value) return value * 2 end\n',
    'double-1.lua': '--- @include "helpers"\nreturn twice(tonumber(ARGV[1]))\n',
    'many-n.lua': 'return #KEYS\n',
    'unnamed.lua': 'return 1\n',
    'add-up-n.lua': '--- @include "helpers"\nlocal function add_up(KEYS, ARGV)\n  return twice(#KEYS)\nend\n\nreturn add_up(KEYS, ARGV)\n',
  });

  it('should inline includes and take the key count from the file name', () => {
    expect(loadScript(directory, 'double-1.lua')).toEqual({
      lua: 'local function twice(value) return value * 2 end\n\nreturn twice(tonumber(ARGV[1]))\n',
      numberOfKeys: 1,
    });
  });

  it('should leave the key count to the caller for a -n script', () => {
    expect(loadScript(directory, 'many-n.lua')).toEqual({ lua: 'return #KEYS\n' });
  });

  it('should refuse a script whose name does not say its keys', () => {
    expect(() => loadScript(directory, 'unnamed.lua')).toThrow(/-<numberOfKeys>\.lua or -n\.lua/);
  });

  it('should give a script that ends in its entry a Function library, named for its code', () => {
    const { lua, library } = loadScript(directory, 'add-up-n.lua');
    expect(library?.name).toMatch(/^sy_add_up_[0-9a-f]{12}$/);
    const body = lua.slice(0, -'return add_up(KEYS, ARGV)\n'.length);
    expect(library?.code).toBe(`#!lua name=${library?.name}\n${body}redis.register_function('${library?.name}', add_up)\n`);
    // EVALSHA's name for the plain script, where a server has no Functions.
    expect(library?.sha).toBe(createHash('sha1').update(lua).digest('hex'));
    expect(library?.name.endsWith(library.sha.slice(0, 12))).toBe(true);
  });

  it('should give other scripts none', () => {
    expect(loadScript(directory, 'double-1.lua').library).toBeUndefined();
  });
});
