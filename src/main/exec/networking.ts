// What the networking flags mean while tern-exec has no execution-layer P2P: --maxpeers, --nodiscover and
// --syncmode ask for no more than tern does (no peers, no discovery, every block executed), so they are accepted
// and said once at startup as what they do. Flags that ask for networking (--bootnodes, --port, --nat...) stay
// refused by the flag table.
import type { Settings } from '../cli/parse.js';
import type { Logger } from '../common/logger/index.js';

export interface NetworkingNote {
  message: string;
  fields: Record<string, unknown>;
}

/** The startup line for the networking settings. */
export function networkingNote(settings: Settings): NetworkingNote {
  const maxPeers = settings.get<number>('maxpeers');
  const syncMode = settings.get<string>('syncmode');
  return {
    message: 'Execution-layer P2P is not built: running with no peers and no discovery',
    fields: {
      maxpeers: maxPeers,
      nodiscover: settings.get<boolean>('nodiscover'),
      syncmode: syncMode === 'full' ? 'full' : `${syncMode} (snap sync is not built: every block is executed)`,
      blocksFrom: 'the consensus node over the Engine API',
    },
  };
}

export function logNetworkingSettings(settings: Settings, logger: Logger): void {
  const note = networkingNote(settings);
  logger.info(note.message, note.fields);
}
