// A forkchoiceUpdated to a held block commits the head without its trie nodes, which follow in a second batch
// (ChainStore.commitBlock with `deferNodes`). While that batch is on its way the head is "trie pending", the next
// payload still hashes (the hasher's layer serves the nodes) and RPC reads retry once it lands; a crash that loses
// it is repaired at start-up by unwinding the head to the last block with its nodes, which then imports again.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { ChainStore, headTriePending, readHeader, recoverHead } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { trieNodeWrites } from '../../../../../src/main/exec/chain/trieNodeWrites.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { MetaKey, metaKey } from '../../../../../src/main/exec/db/schema.js';
import { readTrieNode } from '../../../../../src/main/exec/db/state.js';
import { InlineBlockExecutor } from '../../../../../src/main/exec/executor/inline.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { TrieStateReader } from '../../../../../src/main/exec/state/trieReader.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { Block } from '../../../../../src/main/primitives/block/block.js';
import { ACCOUNT, bytes, FakePool, genesisJson, hex, pending, transfer } from '../engine/fixture.js';
import { serveTestChain } from '../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const TO = bytes(`0x${'11'.repeat(20)}`);
const SENDER = bytes(ACCOUNT.address);
const eq = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
const LAST_PERSISTED = metaKey(MetaKey.lastPersisted);
const HEAD_BLOCK = metaKey(MetaKey.headBlock);

/** Controls the deferred node batches of a database: let them through, hold them until released, or lose them. */
interface NodeWriteGate {
  mode: 'pass' | 'hold' | 'drop';
  held: Array<() => void>;
  dropped: number;
}

function gateNodeWrites(db: Database): NodeWriteGate {
  const gate: NodeWriteGate = { mode: 'pass', held: [], dropped: 0 };
  const kv = db.kv;
  const batch = kv.batch.bind(kv);
  kv.batch = () => {
    const b = batch();
    const keys: Uint8Array[] = [];
    const put = b.put.bind(b);
    b.put = (k, v) => {
      keys.push(k);
      put(k, v);
    };
    const commit = b.commit.bind(b);
    b.commit = async () => {
      // The node batch: moves the last-persisted marker, not the head.
      const nodes = keys.some((k) => eq(k, LAST_PERSISTED)) && !keys.some((k) => eq(k, HEAD_BLOCK));
      if (nodes && gate.mode === 'drop') {
        gate.dropped++;
        return; // a crash: the transaction never lands
      }
      if (nodes && gate.mode === 'hold') await new Promise<void>((r) => gate.held.push(r));
      return commit();
    };
    return b;
  };
  return gate;
}

async function executorOver(store: ChainStore, pool = new FakePool()): Promise<InlineBlockExecutor> {
  const senders = new InlineSenderRecovery();
  return new InlineBlockExecutor(
    store,
    await BlockImporter.create(store, senders, logger),
    await BlockBuilder.create(store, senders, { logger, pool }),
  );
}

const attrs = (timestamp: bigint) => ({
  timestamp,
  prevRandao: new Uint8Array(32).fill(7),
  feeRecipient: new Uint8Array(20).fill(0xfe),
  withdrawals: [],
  parentBeaconBlockRoot: new Uint8Array(32).fill(9),
});

/** Three blocks with one 1000-wei transfer each, built on a separate node. */
async function sourceChain(): Promise<Array<{ block: Block; hash: Uint8Array }>> {
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  const { hash: genesis } = await store.initGenesis(parseGenesis(genesisJson()));
  const pool = new FakePool();
  const ex = await executorOver(store, pool);
  const out: Array<{ block: Block; hash: Uint8Array }> = [];
  let parent = genesis;
  for (let i = 0; i < 3; i++) {
    pool.txs = [pending(await transfer(i))];
    const built = await ex.build(parent, attrs(12n * BigInt(i + 1)));
    await ex.insertBuilt(built.hash);
    await ex.setHead(built.hash);
    out.push({ block: built.block, hash: built.hash });
    parent = built.hash;
  }
  await ex.close();
  await db.close();
  return out;
}

async function node() {
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(parseGenesis(genesisJson()));
  const gate = gateNodeWrites(db);
  return { db, store, gate, executor: await executorOver(store) };
}

/** The head's state read through its trie (every node of it must be stored) equals the flat state. */
function expectHeadTrieMatchesFlat(store: ChainStore, addresses: Uint8Array[]): void {
  const head = store.head();
  expect(readTrieNode(store.db.kv, head.header.stateRoot)).toBeDefined();
  const trie = new TrieStateReader(store.stateReader(), head.header.stateRoot);
  for (const a of addresses) expect(trie.getAccount(a)).toEqual(store.stateReader().getAccount(a));
}

describe('deferred trie nodes of a forkchoiceUpdated head', () => {
  it('commits the head first; the next payload hashes over the nodes still on their way; reads wait for them', async () => {
    const chain = await sourceChain();
    const n = await node();
    const [a1, a2] = chain as [(typeof chain)[0], (typeof chain)[0]];
    n.gate.mode = 'hold';
    expect((await n.executor.insert(a1.block, { defer: true })).held).toBe(true);
    await n.executor.setHead(a1.hash);
    // The head moved, its flat state is there; its trie nodes are not in the database yet.
    expect(n.store.head().number).toBe(1n);
    expect(n.store.stateReader().getAccount(TO)?.balance).toBe(1000n);
    expect(headTriePending(n.db)).toBe(true);
    expect(readTrieNode(n.db.kv, a1.block.header.stateRoot)).toBeUndefined();

    // eth_getProof at the head waits for the nodes and then answers with a proof of the right root.
    const rpc = serveTestChain({ db: n.db, store: n.store });
    const proof = rpc.call('eth_getProof', [hex(TO), [], 'latest']) as Promise<{ accountProof: string[] }>;
    let answered = false;
    void proof.then(() => {
      answered = true;
    });
    // The next payload executes and its state root is computed over block 1's nodes from the hasher's layer.
    const r2 = await n.executor.insert(a2.block, { defer: true });
    expect(r2).toMatchObject({ status: 'imported', held: true });
    expect(answered).toBe(false);

    n.gate.mode = 'pass';
    for (const release of n.gate.held.splice(0)) release();
    const { accountProof } = await proof;
    // The proof starts at the head's root node (its hash is the state root).
    expect(hex(keccak256(bytes(accountProof[0] as string)))).toBe(hex(a1.block.header.stateRoot));
    expect(headTriePending(n.db)).toBe(false);
    expectHeadTrieMatchesFlat(n.store, [TO, SENDER]);

    await n.executor.setHead(a2.hash);
    await n.store.nodesWritten();
    expect(headTriePending(n.db)).toBe(false);
    expectHeadTrieMatchesFlat(n.store, [TO, SENDER]);
    expect(n.store.stateReader().getAccount(TO)?.balance).toBe(2000n);
    await n.executor.close();
  });

  it('a lost node write (crash) is repaired at start-up: the head goes back to the last block with its nodes', async () => {
    const chain = await sourceChain();
    const n = await node();
    const [a1, a2, a3] = chain as [(typeof chain)[0], (typeof chain)[0], (typeof chain)[0]];
    await n.executor.insert(a1.block, { defer: true });
    await n.executor.setHead(a1.hash);
    await n.store.nodesWritten();
    n.gate.mode = 'drop';
    await n.executor.insert(a2.block, { defer: true });
    await n.executor.setHead(a2.hash);
    await n.store.nodesWritten();
    expect(n.gate.dropped).toBe(1);
    expect(n.store.head().number).toBe(2n);
    expect(headTriePending(n.db)).toBe(true);

    // Restart: a new store over the same database; the process that lost the write is gone.
    n.gate.mode = 'pass';
    const store = new ChainStore(n.db);
    const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const log = { ...logger, warn: (msg: string, fields: Record<string, unknown>) => lines.push({ msg, fields }) };
    await recoverHead(store, log as unknown as typeof logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ unwound: '2', head: 1n });
    expect(hex(store.head().hash)).toBe(hex(a1.hash));
    expect(headTriePending(n.db)).toBe(false);
    expect(store.stateReader().getAccount(TO)?.balance).toBe(1000n);
    expectHeadTrieMatchesFlat(store, [TO, SENDER]);
    // Block 2 keeps its data but not its state: the consensus client's resend executes it again.
    expect(readHeader(n.db, a2.hash)?.number).toBe(2n);
    expect(store.hasState(a2.hash)).toBe(false);
    expect(store.canonicalHash(2n)).toBeUndefined();

    const again = await executorOver(store);
    expect((await again.insert(a2.block, { defer: true })).held).toBe(true);
    await again.setHead(a2.hash);
    await again.insert(a3.block, { defer: true });
    await again.setHead(a3.hash);
    await store.nodesWritten();
    expect(store.head().number).toBe(3n);
    expect(store.stateReader().getAccount(TO)?.balance).toBe(3000n);
    expectHeadTrieMatchesFlat(store, [TO, SENDER]);
    // A consistent database needs nothing.
    lines.length = 0;
    await recoverHead(new ChainStore(n.db), log as unknown as typeof logger);
    expect(lines).toHaveLength(0);
    await again.close();
  });

  it('writes the nodes with the head while a hold is on (the state pruner), after the write in flight lands', async () => {
    const chain = await sourceChain();
    const n = await node();
    const [a1, a2] = chain as [(typeof chain)[0], (typeof chain)[0]];
    n.gate.mode = 'hold';
    await n.executor.insert(a1.block, { defer: true });
    await n.executor.setHead(a1.hash);
    const { release, ready } = trieNodeWrites(n.db).hold();
    let landed = false;
    void ready?.then(() => {
      landed = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(landed).toBe(false);
    n.gate.mode = 'pass';
    for (const r of n.gate.held.splice(0)) r();
    await ready;
    expect(headTriePending(n.db)).toBe(false);
    // Held: the next head commits with its nodes.
    n.gate.mode = 'drop';
    await n.executor.insert(a2.block, { defer: true });
    await n.executor.setHead(a2.hash);
    expect(n.gate.dropped).toBe(0);
    expect(headTriePending(n.db)).toBe(false);
    expectHeadTrieMatchesFlat(n.store, [TO, SENDER]);
    release();
    expect(trieNodeWrites(n.db).deferrable).toBe(true);
    await n.executor.close();
  });
});
