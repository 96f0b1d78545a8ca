import { loadScript } from '@switchyard/redis-scripts';
import type { Redis, Result } from 'ioredis';
import { join } from 'node:path';

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

/** Registers the scripts; ioredis sends EVALSHA and falls back to EVAL after a restart flushed them. */
export function defineCatalogCommands(redis: Redis): void {
  redis.defineCommand('catalogAnnounceConfig', loadScript(LUA_DIRECTORY, 'announce-config-2.lua'));
  redis.defineCommand('catalogCreateTenant', loadScript(LUA_DIRECTORY, 'create-tenant-3.lua'));
  redis.defineCommand('catalogDeleteTenant', loadScript(LUA_DIRECTORY, 'delete-tenant-3.lua'));
  redis.defineCommand('catalogCreateKey', loadScript(LUA_DIRECTORY, 'create-key-3.lua'));
  redis.defineCommand('catalogReplaceEntity', loadScript(LUA_DIRECTORY, 'replace-entity-2.lua'));
}
