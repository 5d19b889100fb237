// The startup line for --maxpeers, --nodiscover and --syncmode: what they mean for tern-exec. The network
// itself (listener, discovery, peers) is ./p2p; blocks still come from the consensus node (no sync from peers
// yet), so --syncmode is said as what it does.
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
    message: maxPeers === 0 ? 'Networking off (--maxpeers 0): no peers and no discovery' : 'Networking settings',
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
