import { buildSnapshot, type CatalogSnapshot, type GeneratedKey } from '@switchyard/catalog-client';
import type { SwitchyardConfig } from '@switchyard/config';
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** The config file's part of the catalog, as built from one validated config. */
export interface ConfigCatalog {
  snapshot: CatalogSnapshot;
  /** SHA-256 of the validated config: replicas serving the same file agree on it. */
  fingerprint: string;
  /** Keys minted for `generate: true` entries by this build (plaintext, to print once). */
  generatedKeys: GeneratedKey[];
  /** The `generate: true` entries (`tenant \0 key`), minted now or by an earlier build. */
  generatedIds: Set<string>;
}

/**
 * Builds the config's snapshot. `generate: true` keys keep the hash they were minted with by
 * `previous`, so a reload does not silently replace a demo key that was already printed.
 */
export function buildConfigCatalog(config: SwitchyardConfig, previous?: ConfigCatalog): ConfigCatalog {
  const { snapshot, generatedKeys } = buildSnapshot(config);
  const idOf = (tenantId: string, keyId: string) => `${tenantId}\u0000${keyId}`;
  const minted: GeneratedKey[] = [];
  for (const generated of generatedKeys) {
    const id = idOf(generated.tenantId, generated.keyId);
    const record = snapshot.keys.find((key) => idOf(key.tenantId, key.id) === id);
    const earlier = previous?.generatedIds.has(id) === true ? previous.snapshot.keys.find((key) => idOf(key.tenantId, key.id) === id) : undefined;
    if (record !== undefined && earlier !== undefined) record.sha256 = earlier.sha256;
    else minted.push(generated);
  }
  return {
    snapshot,
    fingerprint: fingerprintConfig(config),
    generatedKeys: minted,
    generatedIds: new Set(generatedKeys.map((generated) => idOf(generated.tenantId, generated.keyId))),
  };
}

export function fingerprintConfig(config: SwitchyardConfig): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex');
}

/**
 * Calls `onChange` (debounced) when the config file may have changed. The directory is
 * watched, not the file: editors save by renaming a new file over the old one, and Kubernetes
 * updates a mounted ConfigMap by swapping a symlink, both invisible to a watch on the old file.
 * The caller re-reads the file and ignores events that changed nothing.
 */
export function watchConfigFile(path: string, onChange: () => void, options: { debounceMs: number; onError: (error: unknown) => void }): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const name = basename(path);
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      // Only the file itself and Kubernetes' `..data` symlink matter; null means unknown.
      if (file !== null && file !== name && !file.startsWith('..')) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(onChange, options.debounceMs);
      timer.unref();
    });
    watcher.on('error', options.onError);
  } catch (error) {
    options.onError(error);
  }
  return {
    close() {
      if (timer !== undefined) clearTimeout(timer);
      watcher?.close();
    },
  };
}
