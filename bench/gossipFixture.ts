// Signed v4 gossip blocks of a chosen size for the gossip-validation bench (and its chain for the P2P fuzzer): incompressible transactions (the worst
// case for snappy and the hash), signed with the first anvil key, on an Isthmus-from-genesis test chain.
import { randomBytes } from 'node:crypto';
import { snappyCompress } from '../src/main/common/snappy.js';
import type { ExecutionPayload } from '../src/main/node/engine/interface.js';
import { payloadBlockHash } from '../src/main/node/p2p/blockHash.js';
import { LocalSigner } from '../src/main/node/signer/local.js';
import { signGossipBlock } from '../src/main/node/signer/setup.js';
import { parseRollupConfig, type RollupConfig } from '../src/main/primitives/rollup/config.js';

export const BENCH_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const BENCH_SIGNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const NOW_S = 1_000_000;
export const BENCH_NOW_MS = NOW_S * 1000;

export const BENCH_CFG: RollupConfig = parseRollupConfig({
  genesis: {
    l1: { hash: `0x${'11'.repeat(32)}`, number: 0 },
    l2: { hash: `0x${'22'.repeat(32)}`, number: 0 },
    l2_time: 1,
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
  ecotone_time: 0,
  fjord_time: 0,
  granite_time: 0,
  holocene_time: 0,
  isthmus_time: 0,
  batch_inbox_address: `0x${'ff'.repeat(20)}`,
  deposit_contract_address: `0x${'dd'.repeat(20)}`,
});

/** A snappy-compressed signed v4 block message whose transactions total about `bytes`. */
export async function benchBlockMessage(bytes: number): Promise<Uint8Array> {
  const TX = 1000;
  const transactions = Array.from(
    { length: Math.max(1, Math.round(bytes / TX)) },
    () => new Uint8Array(randomBytes(TX)),
  );
  const payload: ExecutionPayload = {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: BigInt(NOW_S),
    extraData: new Uint8Array(0),
    baseFeePerGas: 1_000_000n,
    blockHash: new Uint8Array(32),
    transactions,
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    withdrawalsRoot: new Uint8Array(32).fill(0x77),
  };
  const root = new Uint8Array(32).fill(0x42);
  payload.blockHash = payloadBlockHash(payload, 4, root);
  const signed = await signGossipBlock(BENCH_CFG, new LocalSigner(BENCH_KEY), payload, root);
  return snappyCompress(signed.message);
}
