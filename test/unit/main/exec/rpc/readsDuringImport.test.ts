// Reads never wait for a block: head-state reads (balances, code, storage, receipts, logs, blocks) are served from
// LMDB read snapshots, whose head marker is written in the same atomic batch as the block, its receipts and its
// state, so no read waits for an import in flight or sees half of a block. The execution-apis chain (20 Cancun
// blocks) is imported up to block 10; the rest arrives through the node's Engine API while the user RPC is read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WriteBatch } from '../../../../../src/main/common/db/interface.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { payloadFromBlock } from '../../../../../src/main/exec/engine/api.js';
import { type ExecNode, startExecNode } from '../../../../../src/main/exec/node.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { type Block, decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { fromHex, toHex as hex } from '../../../../../src/main/primitives/bytes.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { recoverSender } from '../../../../../src/main/protocol/senders/recover.js';
import { EXECUTION_APIS } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const IMPORTED = 10;
const dir = mkdtempSync(join(tmpdir(), 'tern-reads-during-import-'));
const lifecycle = new Lifecycle(logger);
let node: ExecNode;
let user: RpcClient;
let later: Block[];

/**
 * Holds the next write batch's commit until released: an import stopped after execution, before its block is
 * written. `reached` resolves when the held commit was asked for.
 */
interface Gate {
  arm(): { reached: Promise<void>; release(): void };
}

function gateWrites(kv: { batch(): WriteBatch }): Gate {
  let held: { reach: () => void; open: Promise<void> } | undefined;
  const batch = kv.batch.bind(kv);
  kv.batch = () => {
    const b = batch();
    const commit = b.commit.bind(b);
    b.commit = async () => {
      const h = held;
      if (h !== undefined) {
        held = undefined;
        h.reach();
        await h.open;
      }
      return commit();
    };
    return b;
  };
  return {
    arm: () => {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => {
        reach = r;
      });
      const open = new Promise<void>((r) => {
        release = r;
      });
      held = { reach, open };
      return { reached, release };
    },
  };
}
let gate: Gate;

beforeAll(async () => {
  const db = await openDatabase({ datadir: dir });
  lifecycle.onStop('database', () => db.close());
  const store = new ChainStore(db);
  await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8'))));
  const blocks = [...rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp')))].map(decodeBlock);
  const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
  for (const b of blocks.slice(0, IMPORTED)) await importer.importBlock(b);
  later = blocks.slice(IMPORTED);
  gate = gateWrites(db.kv);
  node = await startExecNode(
    db,
    {
      rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth'] } },
      ipcPath: undefined,
      backend: {},
      // The gate holds this thread's write batch, so the import must write here; the worker twin's writes come from
      // its own thread and meet the same LMDB snapshot rule (test/unit/main/exec/executor covers it).
      executor: 'inline',
    },
    { logger, lifecycle },
  );
  user = new RpcClient({ url: (node.addresses[0] as { url: string }).url, timeoutMs: 30_000 }, { logger });
}, 120_000);

afterAll(async () => {
  await user?.close();
  await lifecycle.stop('test done');
  rmSync(dir, { recursive: true, force: true });
});

/** engine_newPayloadV3 of `block` through the node's EngineApi (not awaited by the caller that reads). */
function newPayload(block: Block) {
  const config = node.store.config();
  const root = block.header.parentBeaconBlockRoot as Uint8Array;
  const blobs = block.transactions.flatMap((raw) => (decodeTransaction(raw).blobVersionedHashes ?? []).map(fromHex));
  return node.engine.newPayload(3, payloadFromBlock(config, block, headerHash(block.header)), blobs, root);
}

const ZERO = new Uint8Array(32);
async function forkchoice(block: Block) {
  const head = headerHash(block.header);
  const r = await node.engine.forkchoiceUpdated(3, {
    headBlockHash: head,
    safeBlockHash: ZERO,
    finalizedBlockHash: ZERO,
  });
  expect(r.payloadStatus.status).toBe('VALID');
}

/** The head-state reads a user makes: block, balance, nonce, code, storage, receipts and logs. */
async function readAll(block: Block) {
  const raw = block.transactions[0] as Uint8Array;
  const tx = decodeTransaction(raw);
  const sender = hex(recoverSender(raw));
  const to = tx.to === undefined ? sender : tx.to.toString();
  const [number, latest, balance, nonce, code, storage, receipt, logs] = await Promise.all([
    user.call('eth_blockNumber'),
    user.call<{ hash: string; stateRoot: string }>('eth_getBlockByNumber', ['latest', false]),
    user.call('eth_getBalance', [sender, 'latest']),
    user.call('eth_getTransactionCount', [sender, 'latest']),
    user.call('eth_getCode', [to, 'latest']),
    user.call('eth_getStorageAt', [to, '0x0', 'latest']),
    user.call('eth_getTransactionReceipt', [hex(tx.hash)]),
    user.call<unknown[]>('eth_getLogs', [{ fromBlock: `0x${block.header.number.toString(16)}`, toBlock: 'latest' }]),
  ]);
  return { number, head: latest.hash, stateRoot: latest.stateRoot, balance, nonce, code, storage, receipt, logs };
}

describe('reads during an import', () => {
  it('answer from the last written head while a newPayload or a forkchoiceUpdated is in flight', async () => {
    const next = later.find((b) => b.transactions.length > 0) as Block;
    // Blocks without transactions before it go in unhindered.
    for (const b of later.slice(0, later.indexOf(next))) {
      expect((await newPayload(b)).status).toBe('VALID');
      await forkchoice(b);
    }
    const before = await readAll(next);
    expect(before.head).toBe(hex(next.header.parentHash));
    expect(before.receipt).toBeNull();

    const { reached, release } = gate.arm();
    let settled = false;
    const importing = newPayload(next).finally(() => {
      settled = true;
    });
    try {
      // Executed, its write batch held (an import that ends first fails the test).
      await Promise.race([
        reached,
        importing.then((r) => {
          throw new Error(`the import ended before its write: ${r.status} ${r.validationError}`);
        }),
      ]);
      const during = await readAll(next);
      expect(settled).toBe(false);
      expect(during).toEqual(before);
    } finally {
      release();
    }
    expect((await importing).status).toBe('VALID');
    // The head moves with forkchoiceUpdated (one batch: head marker, canonical index, flat state): held as well.
    const between = await readAll(next);
    const head = gate.arm();
    let moved = false;
    const moving = forkchoice(next).finally(() => {
      moved = true;
    });
    try {
      await Promise.race([
        head.reached,
        moving.then(() => {
          throw new Error('the head moved without a write');
        }),
      ]);
      expect(await readAll(next)).toEqual(between);
      expect(moved).toBe(false);
    } finally {
      head.release();
    }
    await moving;
    const after = await readAll(next);
    expect(after.head).toBe(hex(headerHash(next.header)));
    expect(after.stateRoot).toBe(hex(next.header.stateRoot));
    expect(BigInt(after.nonce as string)).toBeGreaterThan(BigInt(before.nonce as string));
    expect(after.receipt).toMatchObject({
      transactionHash: hex(decodeTransaction(next.transactions[0] as Uint8Array).hash),
    });
  });

  it('never see half of a block: the head a snapshot shows has its body, receipts and state', async () => {
    const rest = later.filter((b) => b.header.number > node.store.head().number);
    expect(rest.length).toBeGreaterThan(2);
    const seen = new Set<bigint>();
    let feeding = true;
    const reader = (async () => {
      while (feeding) {
        await node.backend.read((view) => {
          const head = view.head();
          const block = view.block(head.hash);
          const receipts = view.receipts(head);
          expect(block).toBeDefined();
          expect(receipts?.length).toBe(block?.transactions.length);
          expect(hex(view.canonicalHash(head.header.number) as Uint8Array)).toBe(hex(head.hash));
          // The flat state is the head's: every sender of the head block is past the nonce it used there.
          for (const raw of block?.transactions ?? []) {
            const tx = decodeTransaction(raw);
            expect(view.txLookup(tx.hash)?.blockNumber).toBe(Number(head.header.number));
            const account = view.state().getAccount(recoverSender(raw));
            expect(account?.nonce ?? 0n).toBeGreaterThan(tx.nonce);
          }
          seen.add(head.header.number);
        });
        await new Promise((r) => setImmediate(r));
      }
    })();
    try {
      for (const b of rest) {
        expect((await newPayload(b)).status).toBe('VALID');
        await forkchoice(b);
      }
    } finally {
      feeding = false;
      await reader;
    }
    expect(seen.size).toBeGreaterThan(1);
    expect(node.store.head().number).toBe(rest.at(-1)?.header.number);
  });
});
