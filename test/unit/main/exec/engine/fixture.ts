// A small Cancun chain for the Engine API tests: a memory database with a funded key, the importer, the builder
// (optionally over a tiny fake pool) and the EngineApi, plus helpers that sign transfers and drive blocks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openStagePools } from '../../../../../src/main/exec/chain/stagePools.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { EngineApi, type EngineApiDeps, type EngineApiOptions } from '../../../../../src/main/exec/engine/api.js';
import { InlineBlockExecutor } from '../../../../../src/main/exec/executor/inline.js';
import { WorkerBlockExecutor } from '../../../../../src/main/exec/executor/worker.js';
import type { PendingTx, TxPool } from '../../../../../src/main/exec/txpool/interface.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import type { PayloadAttributes } from '../../../../../src/main/protocol/engine/types.js';

export const KEY = '0x8a1f9a8f95be41cd7ccb6168179afb4504aefe388d1e14474d32c45c72ce7b7a' as const;
export const ACCOUNT = privateKeyToAccount(KEY);
export const CHAIN_ID = 1337;
/** Prague (payload V4) starts here; earlier timestamps are Cancun (V3). */
export const PRAGUE_TIME = 1_000_000n;
export const ZERO32 = new Uint8Array(32);
export const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
export const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

export function genesisJson(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    config: {
      chainId: CHAIN_ID,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: Number(PRAGUE_TIME),
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      },
      ...extra,
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
    alloc: { [ACCOUNT.address]: { balance: '0x3635c9adc5dea00000' } },
  };
}

/** A pool that hands out a fixed list (the real pool is another module; the builder only needs the interface). */
export class FakePool implements TxPool {
  txs: PendingTx[] = [];
  skipped: string[] = [];
  async add(): Promise<never> {
    throw new Error('not used');
  }
  pendingForBlock() {
    const list = this.txs;
    const skipped = this.skipped;
    const skip = new Set<string>();
    return {
      *[Symbol.iterator]() {
        for (const t of list) if (!skip.has(hex(t.sender))) yield t;
      },
      skipSender(sender: Uint8Array) {
        skip.add(hex(sender));
        skipped.push(hex(sender));
      },
    };
  }
  async onNewHead(): Promise<void> {}
  subscribe(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

export interface EngineFixture {
  db: Database;
  store: ChainStore;
  api: EngineApi;
  pool: FakePool;
  genesisHash: Uint8Array;
  close(): Promise<void>;
}

/** The executor twin engineFixture uses unless told: suites run once per twin (`useExecutor` in their beforeAll). */
let defaultExecutor: 'inline' | 'worker' = 'inline';

export function useExecutor(kind: 'inline' | 'worker'): void {
  defaultExecutor = kind;
}

export async function engineFixture(
  opts: EngineApiOptions & {
    genesis?: Record<string, unknown>;
    halt?: (r: string) => void;
    /** 'worker': an LMDB database with senders on the recovery pool and roots on the trie hasher's thread. */
    stages?: 'inline' | 'worker';
    /** 'worker': the BlockExecutor's worker twin (an LMDB database, which its thread opens too). */
    executor?: 'inline' | 'worker';
    imported?: EngineApiDeps['imported'];
  } = {},
): Promise<EngineFixture> {
  const logger = createLogger({ level: 'silent', format: 'json' }).logger;
  const onThread = (opts.executor ?? defaultExecutor) === 'worker';
  const datadir = opts.stages === 'worker' || onThread ? mkdtempSync(join(tmpdir(), 'tern-engine-')) : undefined;
  const db = await openDatabase(datadir === undefined ? { engine: 'memory' } : { datadir });
  const store = new ChainStore(db);
  const { hash } = await store.initGenesis(parseGenesis(opts.genesis ?? genesisJson()));
  const stages = openStagePools(db, { workers: opts.stages === 'worker', hasher: {}, senderChunk: 4 });
  const pool = new FakePool();
  const inline = new InlineBlockExecutor(
    store,
    await BlockImporter.create(store, stages.senders, logger, { hasher: stages.hasher }),
    await BlockBuilder.create(store, stages.senders, { logger, pool }),
  );
  const paths = db.paths;
  const worker =
    onThread && paths !== undefined
      ? await WorkerBlockExecutor.start(
          store,
          {
            paths,
            blockCacheBytes: 1 << 20,
            stages: { workers: opts.stages === 'worker', hasher: {}, senderChunk: 4 },
          },
          { txPool: pool },
        )
      : undefined;
  const api = new EngineApi(store, worker ?? inline, opts, { logger, halt: opts.halt, imported: opts.imported });
  const close = async () => {
    await worker?.close();
    await stages.close();
    await db.close();
    if (datadir !== undefined) rmSync(datadir, { recursive: true, force: true });
  };
  return { db, store, api, pool, genesisHash: hash, close };
}

/** A signed EIP-1559 transfer from the funded account. */
export async function transfer(nonce: number, to = `0x${'11'.repeat(20)}`, value = 1000n): Promise<Uint8Array> {
  const raw = await ACCOUNT.signTransaction({
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce,
    to: to as `0x${string}`,
    value,
    gas: 21000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 2_000_000_000n,
  });
  return bytes(raw);
}

export function pending(raw: Uint8Array): PendingTx {
  return { tx: decodeTransaction(raw), sender: bytes(ACCOUNT.address) };
}

export function attributes(timestamp: bigint, extra: Partial<PayloadAttributes> = {}): PayloadAttributes {
  return {
    timestamp,
    prevRandao: new Uint8Array(32).fill(7),
    suggestedFeeRecipient: new Uint8Array(20).fill(0xfe),
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32).fill(9),
    ...extra,
  };
}

/** Builds a block on `parent` through forkchoiceUpdated + getPayload + newPayload (V3); returns its hash. */
export async function buildBlock(
  f: EngineFixture,
  parent: Uint8Array,
  timestamp: bigint,
  extra: Partial<PayloadAttributes> = {},
  setHead = true,
): Promise<Uint8Array> {
  const state = { headBlockHash: parent, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
  const attrs = attributes(timestamp, extra);
  const fcu = await f.api.forkchoiceUpdated(3, state, attrs);
  if (fcu.payloadId === null) throw new Error(`no payload id: ${JSON.stringify(fcu.payloadStatus)}`);
  const env = f.api.getPayload(3, fcu.payloadId);
  const status = await f.api.newPayload(3, env.executionPayload, [], attrs.parentBeaconBlockRoot);
  if (status.status !== 'VALID') throw new Error(`newPayload: ${status.status} ${status.validationError}`);
  const hash = env.executionPayload.blockHash;
  if (setHead) await f.api.forkchoiceUpdated(3, { ...state, headBlockHash: hash });
  return hash;
}
