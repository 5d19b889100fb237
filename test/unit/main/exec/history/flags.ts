// The storage flags as tern-exec reads them, for storageSettings: the defaults of a full node, with `over` on top.
import { storageSettings } from '../../../../../src/main/cli/execOptions.js';
import type { ResolvedStorageSettings } from '../../../../../src/main/exec/history/options.js';

/** storageSettings over the flag values `over` laid on a full node's defaults; `isSet` names the flags given. */
export function flagSettings(
  over: Record<string, unknown> = {},
  isSet: (name: string) => boolean = (n) => n in over,
): ResolvedStorageSettings {
  const values: Record<string, unknown> = {
    gcmode: 'full',
    'history.transactions': 2_350_000,
    cache: 4096,
    'cache.database': 50,
    'cache.trie': 15,
    'cache.gc': 25,
    'cache.snapshot': 10,
    'cache.blocklogs': 32,
    snapshot: true,
    'history.logs': 2_350_000,
    'history.logs.disable': false,
    'history.chain': 'all',
    'history.state': 90000,
    ...over,
  };
  return storageSettings({ get: <T>(n: string) => values[n] as T, isSet });
}
