// Signed gossip blocks for the P2P tests: a rollup config with every topic version in reach (Canyon at 0, Ecotone
// at 9000, Isthmus at 9500), payloads with correct block hashes, and messages signed with a known key.

import { snappyCompress } from '../../src/main/common/snappy.js';
import type { ExecutionPayload } from '../../src/main/node/engine/interface.js';
import { payloadBlockHash } from '../../src/main/node/p2p/blockHash.js';
import type { BlockVersion } from '../../src/main/node/signer/gossipPayload.js';
import { LocalSigner } from '../../src/main/node/signer/local.js';
import { signGossipBlock } from '../../src/main/node/signer/setup.js';
import { parseRollupConfig, type RollupConfig } from '../../src/main/primitives/rollup/config.js';

export const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const KEY_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
export const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const NOW_S = 10_000;
export const ROOT = new Uint8Array(32).fill(0x42);

// Canyon at 0 (v2), Ecotone at 9000 (v3), Isthmus at 9500 (v4).
export const CFG: RollupConfig = parseRollupConfig({
  genesis: {
    l1: { hash: `0x${'11'.repeat(32)}`, number: 0 },
    l2: { hash: `0x${'22'.repeat(32)}`, number: 0 },
    l2_time: 1000,
    system_config: {
      batcherAddr: `0x${'bb'.repeat(20)}`,
      overhead: `0x${'00'.repeat(32)}`,
      scalar: `0x${'00'.repeat(31)}01`,
      gasLimit: 30_000_000,
    },
  },
  block_time: 2,
  max_sequencer_drift: 600,
  seq_window_size: 4,
  channel_timeout: 50,
  l1_chain_id: 900,
  l2_chain_id: 901,
  regolith_time: 0,
  canyon_time: 0,
  delta_time: 0,
  ecotone_time: 9000,
  fjord_time: 9000,
  granite_time: 9000,
  holocene_time: 9000,
  isthmus_time: 9500,
  batch_inbox_address: `0x${'ff'.repeat(20)}`,
  deposit_contract_address: `0x${'dd'.repeat(20)}`,
});

/** A v4 payload at `timestamp` with a correct block hash. */
export function validPayload(extra: Partial<ExecutionPayload> = {}, version: BlockVersion = 4): ExecutionPayload {
  const p: ExecutionPayload = {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: BigInt(NOW_S - 2),
    extraData: new Uint8Array(0),
    baseFeePerGas: 1_000_000n,
    blockHash: new Uint8Array(32),
    transactions: [Uint8Array.of(0x7e, 1, 2)],
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    withdrawalsRoot: new Uint8Array(32).fill(0x77),
    ...extra,
  };
  p.blockHash = payloadBlockHash(p, version, version >= 3 ? ROOT : undefined);
  return p;
}

export async function signedMessage(
  p: ExecutionPayload,
  key = KEY,
  cfg: RollupConfig = CFG,
): Promise<{ version: BlockVersion; data: Uint8Array }> {
  const signed = await signGossipBlock(cfg, new LocalSigner(key), p, ROOT);
  return { version: signed.version, data: snappyCompress(signed.message) };
}
