// The startup line for --maxpeers, --nodiscover and --syncmode: what they mean for tern-exec. The network
// itself (listener, discovery, peers) is ./p2p and block sync from peers is ./sync; the snap client is not built,
// so --syncmode snap is said as what it does (full sync).
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
      syncmode: syncMode === 'full' ? 'full' : `${syncMode} (snap sync is not built: full sync, every block executed)`,
      blocksFrom:
        maxPeers === 0
          ? 'the consensus node over the Engine API'
          : 'the consensus node over the Engine API, and peers (full sync) for heads it names that are missing here',
    },
  };
}

export function logNetworkingSettings(opts: NetworkingOptions, logger: Logger): void {
  const note = networkingNote(opts);
  logger.info(note.message, note.fields);
}
