// The engine feeder: a chain file's blocks turned into Engine API payloads and delivered one by one, each as
// engine_newPayloadV3 followed by engine_forkchoiceUpdatedV3 to it, as a consensus client drives a replica. The
// same loop runs over HTTP+JWT (a spawned tern-exec) and against the EngineApi object in this process.
import { EncodedParams, type RpcClient } from '../../src/main/common/rpc/client.js';
import type { EngineApi } from '../../src/main/exec/engine/api.js';
import { payloadFromBlock } from '../../src/main/exec/engine/api.js';
import { decodeBlock } from '../../src/main/primitives/block/block.js';
import { headerHash } from '../../src/main/primitives/block/header.js';
import { fromHex, toHex as hex } from '../../src/main/primitives/bytes.js';
import type { ChainConfig } from '../../src/main/primitives/chainConfig.js';
import { rlpItems } from '../../src/main/primitives/rlpStream.js';
import { decodeTransaction } from '../../src/main/primitives/tx/decode.js';
import { type ExecutionPayload, executionPayloadToJson } from '../../src/main/protocol/engine/types.js';

/** One block as the consensus client hands it over: engine_newPayloadV3's three parameters. */
export interface PayloadCall {
  readonly payload: ExecutionPayload;
  readonly versionedHashes: Uint8Array[];
  readonly parentBeaconBlockRoot: Uint8Array;
  readonly txs: number;
}

/** Where the payloads go; each answer is the payload status (VALID, INVALID, SYNCING, ACCEPTED). */
export interface EngineSink {
  /**
   * Work the consensus client does before it sends (e.g. encoding the payloads as JSON), run before the clock
   * starts: the in-process path has none, and the node's work is what is timed.
   */
  prepare?(calls: readonly PayloadCall[]): void;
  newPayload(call: PayloadCall): Promise<{ status: string; validationError: string | null }>;
  forkchoiceUpdated(head: Uint8Array): Promise<{ status: string; validationError: string | null }>;
}

export interface FeedFigures {
  readonly blocks: number;
  readonly txs: number;
  readonly gas: number;
  readonly seconds: number;
  readonly mgasPerSec: number;
  /** The hash of the last block fed (the node's head afterwards). */
  readonly head: string;
}

const ZERO_HASH = new Uint8Array(32);

/** The chain file's blocks (at most `limit`) as Engine API payloads; Cancun blocks only (V3). */
export function payloadsOf(chain: Uint8Array, config: ChainConfig, limit = Number.POSITIVE_INFINITY): PayloadCall[] {
  const calls: PayloadCall[] = [];
  for (const raw of rlpItems(chain)) {
    if (calls.length >= limit) break;
    const block = decodeBlock(raw);
    const root = block.header.parentBeaconBlockRoot;
    if (root === undefined) throw new Error(`block ${block.header.number} is not a Cancun block (no beacon root)`);
    const versionedHashes: Uint8Array[] = [];
    for (const tx of block.transactions)
      if (tx[0] === 3) versionedHashes.push(...(decodeTransaction(tx).blobVersionedHashes ?? []).map(fromHex));
    calls.push({
      payload: payloadFromBlock(config, block, headerHash(block.header)),
      versionedHashes,
      parentBeaconBlockRoot: root,
      txs: block.transactions.length,
    });
  }
  return calls;
}

/** Feeds the payloads in order; any answer but VALID stops the run with an error. */
export async function feedPayloads(
  calls: readonly PayloadCall[],
  sink: EngineSink,
  /** Told which Engine API call is in flight (`newPayload 12`, `forkchoiceUpdated 12`, `` between them). */
  onPhase: (phase: string) => void = () => {},
): Promise<FeedFigures> {
  let gas = 0;
  let txs = 0;
  let head = '';
  sink.prepare?.(calls);
  const started = performance.now();
  for (const call of calls) {
    const { payload } = call;
    onPhase(`newPayload ${payload.blockNumber}`);
    const np = await sink.newPayload(call);
    onPhase(`forkchoiceUpdated ${payload.blockNumber}`);
    if (np.status !== 'VALID')
      throw new Error(`newPayload of block ${payload.blockNumber}: ${np.status} ${np.validationError ?? ''}`);
    const fcu = await sink.forkchoiceUpdated(payload.blockHash);
    onPhase('');
    if (fcu.status !== 'VALID')
      throw new Error(`forkchoiceUpdated to block ${payload.blockNumber}: ${fcu.status} ${fcu.validationError ?? ''}`);
    gas += Number(payload.gasUsed);
    txs += call.txs;
    head = hex(payload.blockHash);
  }
  const seconds = (performance.now() - started) / 1000;
  return { blocks: calls.length, txs, gas, seconds, mgasPerSec: gas / 1e6 / seconds, head };
}

const forkchoice = (head: Uint8Array) => ({
  headBlockHash: head,
  safeBlockHash: ZERO_HASH,
  finalizedBlockHash: ZERO_HASH,
});

/** engine_newPayloadV3's params as JSON, as the consensus client sends them. */
const newPayloadParams = (c: PayloadCall) =>
  new EncodedParams(
    JSON.stringify([executionPayloadToJson(c.payload), c.versionedHashes.map(hex), hex(c.parentBeaconBlockRoot)]),
  );

/** The Engine API over HTTP+JWT (the client carries the secret). */
export function httpEngineSink(client: RpcClient): EngineSink {
  const encoded = new WeakMap<PayloadCall, EncodedParams>();
  return {
    prepare: (calls) => {
      for (const c of calls) encoded.set(c, newPayloadParams(c));
    },
    newPayload: (c) => client.call('engine_newPayloadV3', encoded.get(c) ?? newPayloadParams(c)),
    forkchoiceUpdated: async (head) => {
      const f = forkchoice(head);
      const state = {
        headBlockHash: hex(f.headBlockHash),
        safeBlockHash: hex(ZERO_HASH),
        finalizedBlockHash: hex(ZERO_HASH),
      };
      const r = await client.call<{ payloadStatus: { status: string; validationError: string | null } }>(
        'engine_forkchoiceUpdatedV3',
        [state, null],
      );
      return r.payloadStatus;
    },
  };
}

/** The EngineApi object of a node running in this process: the same handlers without HTTP, JSON or JWT. */
export function inProcessEngineSink(api: EngineApi): EngineSink {
  return {
    newPayload: (c) => api.newPayload(3, c.payload, c.versionedHashes, c.parentBeaconBlockRoot),
    forkchoiceUpdated: async (head) => (await api.forkchoiceUpdated(3, forkchoice(head))).payloadStatus,
  };
}
