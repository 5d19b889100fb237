// Which block signer the settings ask for (op-node's signer setup): --p2p.sequencer.key gives the local signer,
// --signer.endpoint with --signer.address the remote one; none is fine for a replica. Both at once, or an
// endpoint without an address, is a usage error. signGossipBlock() is what the sequencer calls per sealed block.
import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { ExecutionPayload } from '../engine/interface.js';
import { type BlockVersion, gossipPayload } from './gossipPayload.js';
import type { BlockSigner } from './interface.js';
import { LocalSigner, parsePrivateKey } from './local.js';
import { RemoteSigner, type RemoteSignerOptions } from './remote.js';
import { payloadHash } from './signingHash.js';

export interface SignerSetupOptions {
  /** --p2p.sequencer.key */
  sequencerKey?: string | undefined;
  /** --signer.endpoint, --signer.address, --signer.header, --signer.tls.* */
  remote?: Partial<RemoteSignerOptions> & Pick<RemoteSignerOptions, 'tls'>;
}

export async function setupBlockSigner(
  opts: SignerSetupOptions,
  deps: { logger: Logger; signal?: AbortSignal | undefined },
): Promise<BlockSigner | undefined> {
  const key = opts.sequencerKey?.trim();
  const endpoint = opts.remote?.endpoint?.trim();
  const address = opts.remote?.address?.trim();
  const hasKey = key !== undefined && key !== '';
  const hasEndpoint = endpoint !== undefined && endpoint !== '';
  const hasAddress = address !== undefined && address !== '';
  if (hasKey && (hasEndpoint || hasAddress)) {
    throw new UsageError('use either --p2p.sequencer.key or --signer.endpoint/--signer.address, not both');
  }
  if (hasEndpoint !== hasAddress) {
    throw new UsageError('--signer.endpoint and --signer.address must be given together');
  }
  if (hasKey) {
    let priv: Uint8Array;
    try {
      priv = parsePrivateKey(key);
    } catch (err) {
      throw new UsageError(`--p2p.sequencer.key: ${(err as Error).message}`);
    }
    const s = new LocalSigner(priv);
    priv.fill(0);
    deps.logger.info('Sequencer blocks are signed with the local key', { address: s.address });
    return s;
  }
  if (hasEndpoint && opts.remote !== undefined) {
    return RemoteSigner.connect({ ...opts.remote, endpoint, address: address as string, tls: opts.remote.tls }, deps);
  }
  return undefined;
}

export interface SignedGossipBlock {
  version: BlockVersion;
  signature: Uint8Array;
  /** signature ‖ payload: the gossip message before snappy compression. */
  message: Uint8Array;
}

/** Signs a sealed block as the gossip topics carry it. */
export async function signGossipBlock(
  cfg: RollupConfig,
  signer: BlockSigner,
  payload: ExecutionPayload,
  parentBeaconBlockRoot?: Uint8Array | undefined,
): Promise<SignedGossipBlock> {
  const { version, bytes } = gossipPayload(cfg, payload, parentBeaconBlockRoot);
  const signature = await signer.signBlock(cfg.l2ChainId, payloadHash(bytes));
  const message = new Uint8Array(65 + bytes.length);
  message.set(signature, 0);
  message.set(bytes, 65);
  return { version, signature, message };
}
