// The nodes and peers of the sync tests: peers serve the execution-apis test chain (20 Cancun blocks, 73
// transactions) from one store; a node starts from the same genesis, optionally with the chain's first blocks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { type ChainBlock, importChain } from '../../../../../src/main/exec/chain/importChain.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { buildTestChain, EXECUTION_APIS } from '../rpc/chain.js';
import { FakePeer, FakePeerSet, type Misbehaviour } from './fakePeers.js';

export const silent = createLogger({ level: 'silent', format: 'json' }).logger;

export type LogLine = { msg: string; fields: Record<string, unknown> };

/** A logger that keeps its lines, to see what the sync reports. */
export function recordingLogger(lines: LogLine[]): Logger {
  const rec =
    () =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ msg, fields });
  const logger = {
    trace: rec(),
    debug: rec(),
    info: rec(),
    warn: rec(),
    error: rec(),
    isEnabled: () => true,
    child: () => logger,
  };
  return logger as unknown as Logger;
}

/** Things to close after each test. */
export const opened: Array<{ close(): Promise<void> }> = [];

let source: Promise<ChainStore> | undefined;
/** The chain the peers hold (built once: peers only read it). */
export function sourceChain(): Promise<ChainStore> {
  source ??= buildTestChain(silent).then(({ store }) => store);
  return source;
}

export function genesis() {
  return parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8')));
}

export interface SyncNode {
  db: Database;
  store: ChainStore;
  importer: BlockImporter;
  /** What the sync imports through (a BlockExecutor's importChain; here the importer on this thread). */
  importChain: (parent: Uint8Array, blocks: readonly ChainBlock[]) => Promise<Uint8Array>;
}

/** A node with the genesis only, or with the chain's first `blocks` blocks imported. */
export async function emptyNode(blocks = 0): Promise<SyncNode> {
  const db = await openDatabase({ engine: 'memory' });
  opened.push(db);
  const store = new ChainStore(db);
  await store.initGenesis(genesis());
  const importer = await BlockImporter.create(store, new InlineSenderRecovery(), silent);
  let n = 0;
  for (const raw of rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp')))) {
    if (n++ >= blocks) break;
    await importer.importBlock(decodeBlock(raw));
  }
  return { db, store, importer, importChain: (parent, run) => importChain(store, importer, parent, run) };
}

/** One peer per behaviour, all serving the source chain. */
export async function peers(behaviours: Misbehaviour[]): Promise<{ set: FakePeerSet; list: FakePeer[] }> {
  const store = await sourceChain();
  const set = new FakePeerSet();
  const list = behaviours.map((b, i) => new FakePeer(`${String(i).repeat(2)}${b}`.padEnd(64, '0'), store, b));
  for (const p of list) set.add(p);
  return { set, list };
}

/** Small batches, so the 20 blocks take several of each. */
export const small = { headerBatch: 4, headerLookahead: 3, bodyBatch: 3, window: 8, importChunk: 4, retryMs: 20 };
