// A call on a call worker reads the block the coordinator resolved, from the worker's own LMDB snapshot, even when
// new heads commit between the resolution and the run: the execution-apis chain is imported up to block 10, an
// eth_call at `latest` is resolved (block 10) and held before the worker runs it, blocks 11–20 commit, then the
// worker runs it. The call returns BALANCE of an account blocks 11–20 change, NUMBER and BLOCKHASH(NUMBER − 1).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { ChainView } from '../../../../../src/main/exec/chain/chainView.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import type { CallPool } from '../../../../../src/main/exec/rpc/call.js';
import { createCallPool } from '../../../../../src/main/exec/rpc/callPool.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { TrieStateReader } from '../../../../../src/main/exec/state/trieReader.js';
import { type RunCallInput, runCall } from '../../../../../src/main/exec/workers/calls.js';
import { snapshotScope } from '../../../../../src/main/exec/workers/snapshotScope.js';
import { type Block, decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { fromHex, toHex } from '../../../../../src/main/primitives/bytes.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { LMDB_ENV_SETTINGS } from '../../../../../src/main/protocol/db/sharedEnv.js';
import { EXECUTION_APIS } from '../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-snapshot-scope-'));
const PINNED = 10;
let db: Database;
let importer: BlockImporter;
let later: Block[];
let backend: ExecRpcBackend;
/** An account whose balance blocks 11–20 change: the coinbase of block 11. */
let account: Uint8Array;

/** Creation code: returns BALANCE(account) ‖ NUMBER ‖ BLOCKHASH(NUMBER − 1), 32 bytes each. */
function probeCode(address: Uint8Array): Uint8Array {
  return fromHex(
    `0x73${Buffer.from(address).toString('hex')}31600052` + // mstore(0, balance(account))
      '436020526001430340604052' + // mstore(32, number); mstore(64, blockhash(number - 1))
      '60606000f3', // return(0, 96)
  );
}

const word = (n: bigint): string => n.toString(16).padStart(64, '0');

beforeAll(async () => {
  db = await openDatabase({ datadir: join(dir, 'datadir') });
  const store = new ChainStore(db);
  await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8'))));
  importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
  const blocks = [...rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp')))].map((raw) => decodeBlock(raw));
  for (const block of blocks.slice(0, PINNED)) await importer.importBlock(block);
  later = blocks.slice(PINNED);
  account = (later[0] as Block).header.coinbase;
  backend = new ExecRpcBackend(db, store.config(), {}, logger);
}, 60_000);

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('call workers on their own LMDB snapshots', () => {
  it('a call resolved at block 10 reads block 10 although blocks 11-20 committed before it ran', async () => {
    // What block 10 holds, read through a coordinator snapshot taken now and kept across the imports.
    const before = ChainView.open(db, backend.config);
    const head = before.head();
    expect(head.header.number).toBe(BigInt(PINNED));
    const balance10 = before.state().getAccount(account)?.balance ?? 0n;
    const parent10 = before.canonicalHash(BigInt(PINNED - 1)) as Uint8Array;
    before.release();

    // A pool that holds the task until the new heads are in, then runs the worker's task function.
    let run: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      run = resolve;
    });
    const inputs: RunCallInput[] = [];
    const pool = {
      runResult: async (_name: string, input: RunCallInput) => {
        inputs.push(input);
        await held;
        return runCall(input);
      },
    } as unknown as CallPool;
    backend.calls.usePool(pool);
    const answer = backend.calls.call(
      { input: probeCode(account) },
      { blockNumber: 'latest', requireCanonical: false },
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(inputs).toHaveLength(1);
    expect(inputs[0]?.pin?.hash).toEqual(head.hash);

    for (const block of later) await importer.importBlock(block);
    const after = ChainView.open(db, backend.config);
    expect(after.head().header.number).toBe(20n);
    const balance20 = after.state().getAccount(account)?.balance ?? 0n;
    after.release();
    // Otherwise the test could not tell block 10's state from the head's.
    expect(balance20).not.toBe(balance10);

    (run as () => void)();
    const out = await answer;
    expect(out).toBe(`0x${word(balance10)}${word(BigInt(PINNED))}${toHex(parent10).slice(2)}`);
    backend.calls.usePool(undefined);
  });

  it('reads the flat state when the pin is the head, the trie under its root when it is not', () => {
    const view = ChainView.open(db, backend.config);
    const head = view.head();
    const older = view.headerByNumber(5n);
    view.release();
    if (older === undefined) throw new Error('no block 5');
    const paths = db.paths as NonNullable<Database['paths']>;
    const atHead = snapshotScope({ paths, hash: head.hash }, head.header, backend.config);
    const atOlder = snapshotScope({ paths, hash: older.hash }, older.header, backend.config);
    try {
      expect(atHead.scope.reader).not.toBeInstanceOf(TrieStateReader);
      expect(atOlder.scope.reader).toBeInstanceOf(TrieStateReader);
      expect(atOlder.scope.getBlockHash(4n)).toEqual(
        ChainView.open(db, backend.config).canonicalHash(4n) as Uint8Array,
      );
    } finally {
      atHead.release();
      atOlder.release();
    }
  });

  it('leaves no read transaction of its own open once the call is done', () => {
    const paths = db.paths as NonNullable<Database['paths']>;
    const readers = open({ path: paths.chaindata, ...LMDB_ENV_SETTINGS, readOnly: true });
    // Reader slots holding a snapshot (a transaction id; '-' is a reset, idle slot).
    const pinned = () =>
      readers
        .readerList()
        .split('\n')
        .filter((l) => /\s\d+\s*$/.test(l)).length;
    const before = pinned();
    const view = ChainView.open(db, backend.config);
    const head = view.head();
    view.release();
    const { scope, release } = snapshotScope({ paths, hash: head.hash }, head.header, backend.config);
    scope.reader.getAccount(account);
    expect(pinned()).toBeGreaterThan(before);
    release();
    expect(pinned()).toBeLessThanOrEqual(before);
  });

  it('refuses a pin whose header does not match the stored block', () => {
    const view = ChainView.open(db, backend.config);
    const head = view.head();
    view.release();
    const paths = db.paths as NonNullable<Database['paths']>;
    const forged = { ...head.header, stateRoot: new Uint8Array(32).fill(1) };
    expect(() => snapshotScope({ paths, hash: head.hash }, forged, backend.config)).toThrow(/not stored as the call/);
  });

  it('on the real call workers: eth_call at latest and at a past block agree with eth_getBalance', async () => {
    const pool = createCallPool(2, logger);
    if (pool === undefined) throw new Error('no call pool');
    backend.calls.usePool(pool);
    try {
      for (const sel of [
        { blockNumber: 'latest' as const, requireCanonical: false as const },
        { blockNumber: BigInt(PINNED), requireCanonical: false as const },
      ]) {
        // Read here through the trie under the block's state root (the worker reads the head's flat state).
        const expected = await backend.read((v) => {
          const ref = sel.blockNumber === 'latest' ? v.head() : v.headerByNumber(sel.blockNumber);
          if (ref === undefined) throw new Error('no block');
          const bal = new TrieStateReader(v.state(), ref.header.stateRoot).getAccount(account)?.balance ?? 0n;
          const parent = v.canonicalHash(ref.header.number - 1n) as Uint8Array;
          return `0x${word(bal)}${word(ref.header.number)}${toHex(parent).slice(2)}`;
        });
        expect(await backend.calls.call({ input: probeCode(account) }, sel)).toBe(expected);
      }
    } finally {
      backend.calls.usePool(undefined);
      await pool.close();
    }
  }, 30_000);
});
