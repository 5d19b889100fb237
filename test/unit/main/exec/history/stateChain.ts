// A chain with real state for the pruning tests: the execution-apis genesis, then blocks whose state diffs are
// written through ChainStore (commitBlock, commitSideBlock) with the trie commitment computing each state root, so
// every header's state root is the root of stored trie nodes. No execution: a block is just its diff.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import type { AccountDiff, StateDiff } from '../../../../../src/main/exec/state/interface.js';
import { DbStateReader, EMPTY_CODE_HASH } from '../../../../../src/main/exec/state/stateStore.js';
import { type Header, headerHash } from '../../../../../src/main/primitives/block/header.js';
import { StateCommitment } from '../../../../../src/main/primitives/trie/commitment.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const GENESIS = join(FIXTURES, 'execution-apis/tests/genesis.json');

export const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;

const account = (balance: bigint, storage = new Map<string, bigint>()): AccountDiff => ({
  nonce: 0n,
  balance,
  codeHash: EMPTY_CODE_HASH,
  storage,
  storageCleared: false,
});

export interface StateChain {
  db: Database;
  store: ChainStore;
  /** Builds a block on `parent` (default the head) setting these balances; commits it canonical or beside. */
  block(
    balances: Map<string, bigint>,
    opts?: { parent?: Uint8Array; side?: boolean; salt?: number },
  ): Promise<{ hash: Uint8Array; header: Header }>;
}

export async function stateChain(opts: { reorgHistory?: number; datadir?: string } = {}): Promise<StateChain> {
  const db = await openDatabase(opts.datadir === undefined ? { engine: 'memory' } : { datadir: opts.datadir });
  const store = new ChainStore(db, opts.reorgHistory === undefined ? {} : { reorgHistory: opts.reorgHistory });
  await store.initGenesis(parseGenesis(JSON.parse(readFileSync(GENESIS, 'utf8'))));
  const block: StateChain['block'] = async (balances, o = {}) => {
    const parent = store.headerByHash(o.parent ?? store.head().hash)!;
    const diff: StateDiff = { accounts: new Map(), codes: new Map() };
    for (const [a, v] of balances) {
      // Every tenth account has two storage slots, so storage tries are walked too.
      const n = Number.parseInt(a.slice(2), 16);
      const storage =
        n % 10 === 0
          ? new Map([
              [`0x${'00'.repeat(31)}01`, v],
              [`0x${'00'.repeat(31)}02`, BigInt(n)],
            ])
          : new Map<string, bigint>();
      diff.accounts.set(a, account(v, storage));
    }
    const c = new StateCommitment(new DbStateReader(db.kv)).apply(parent.stateRoot, diff);
    const header: Header = {
      ...parent,
      parentHash: headerHash(parent),
      number: parent.number + 1n,
      stateRoot: c.root,
      timestamp: parent.timestamp + 2n + BigInt(o.salt ?? 0),
    };
    const hash = headerHash(header);
    const commit = {
      block: { header, transactions: [], uncles: [], withdrawals: header.withdrawalsRoot ? [] : undefined },
      hash,
      receipts: [],
      diff,
      storageRoots: c.storageRoots,
      newNodes: c.newNodes,
    };
    if (o.side) await store.commitSideBlock(commit);
    else await store.commitBlock(commit);
    return { hash, header };
  };
  return { db, store, block };
}

/** Balances 1..count for accounts first..first+count-1, each plus `delta`. */
export function balances(first: number, count: number, delta = 0n): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (let i = first; i < first + count; i++) m.set(address(i), BigInt(i + 1) + delta);
  return m;
}
