import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis, Result } from 'ioredis';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** lua/announce-config-2.lua */
    catalogAnnounceConfig(configKey: string, versionKey: string, channel: string, fingerprint: string, force: string): Result<[number, number], Context>;
    /** lua/create-tenant-3.lua */
    catalogCreateTenant(
      tenantsKey: string,
      keysKey: string,
      versionKey: string,
      channel: string,
      tenantField: string,
      tenantJson: string,
      keyPrefix: string,
    ): Result<number, Context>;
    /** lua/delete-tenant-3.lua */
    catalogDeleteTenant(
      tenantsKey: string,
      keysKey: string,
      versionKey: string,
      channel: string,
      tenantField: string,
      keyPrefix: string,
    ): Result<[number, number], Context>;
    /** lua/create-key-3.lua */
    catalogCreateKey(
      tenantsKey: string,
      keysKey: string,
      versionKey: string,
      channel: string,
      tenantField: string,
      keyField: string,
      keyJson: string,
    ): Result<number, Context>;
    /** lua/replace-entity-2.lua */
    catalogReplaceEntity(hashKey: string, versionKey: string, channel: string, field: string, expected: string, next: string): Result<number, Context>;
  }
}

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');

/**
 * Reads a script and inlines its `--- @include "<name>"` lines from lua/includes/ (BullMQ's
 * convention). The key count comes from the file name, `<name>-<numberOfKeys>.lua`, so the
 * header and the registration cannot disagree.
 */
function loadScript(fileName: string): { lua: string; numberOfKeys: number } {
  const match = /-(\d+)\.lua$/.exec(fileName);
  if (match === null) throw new Error(`${fileName}: script names end in -<numberOfKeys>.lua`);
  const source = readFileSync(join(LUA_DIRECTORY, fileName), 'utf8');
  const lua = source.replace(/^--- @include "([\w-]+)"$/gm, (_line, name: string) => readFileSync(join(LUA_DIRECTORY, 'includes', `${name}.lua`), 'utf8'));
  return { lua, numberOfKeys: Number(match[1]) };
}

/** Registers the scripts; ioredis sends EVALSHA and falls back to EVAL after a restart flushed them. */
export function defineCatalogCommands(redis: Redis): void {
  redis.defineCommand('catalogAnnounceConfig', loadScript('announce-config-2.lua'));
  redis.defineCommand('catalogCreateTenant', loadScript('create-tenant-3.lua'));
  redis.defineCommand('catalogDeleteTenant', loadScript('delete-tenant-3.lua'));
  redis.defineCommand('catalogCreateKey', loadScript('create-key-3.lua'));
  redis.defineCommand('catalogReplaceEntity', loadScript('replace-entity-2.lua'));
}
