// What the networking flags mean while tern-exec has no execution-layer P2P: --maxpeers, --nodiscover and
// --syncmode ask for no more than tern does (no peers, no discovery, every block executed), so they are accepted
// and said once at startup as what they do. Flags that ask for networking (--bootnodes, --port, --nat...) stay
// refused by the flag table.
import type { Logger } from '../common/logger/index.js';

export interface NetworkingNote {
  message: string;
  fields: Record<string, unknown>;
}

/** --maxpeers, --nodiscover and --syncmode. */
export interface NetworkingOptions {
  maxPeers: number;
  noDiscover: boolean;
  syncMode: string;
}

/** The startup line for the networking settings. */
export function networkingNote(opts: NetworkingOptions): NetworkingNote {
  const { maxPeers, syncMode } = opts;
  return {
    message: 'Execution-layer P2P is not built: running with no peers and no discovery',
    fields: {
      maxpeers: maxPeers,
      nodiscover: opts.noDiscover,
      syncmode: syncMode === 'full' ? 'full' : `${syncMode} (snap sync is not built: every block is executed)`,
      blocksFrom: 'the consensus node over the Engine API',
    },
  };
}

export function logNetworkingSettings(opts: NetworkingOptions, logger: Logger): void {
  const note = networkingNote(opts);
  logger.info(note.message, note.fields);
}
