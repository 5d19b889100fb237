// --rollup.computependingblock on LMDB with call workers: the pending block is built on a call worker, so the
// coordinator (this test's thread, where the node runs) keeps answering while a block's worth of EVM work runs. The
// pool holds one contract creation whose code loops until its 25M gas run out; the `pending` block must hold it, and
// the event loop here must not stall for the length of the build (built here it stalls for all of it). Cancun only:
// the pending block's timestamp is now, and Prague would need its system contracts in the genesis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { type ExecNode, startExecNode } from '../../../../../src/main/exec/node.js';
import { ACCOUNT, CHAIN_ID, genesisJson } from '../engine/fixture.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-pending-worker-'));
const lifecycle = new Lifecycle(logger);
const LOOP_GAS = 25_000_000n;
let node: ExecNode;
let user: RpcClient;

beforeAll(async () => {
  const db = await openDatabase({ datadir: join(dir, 'datadir') });
  lifecycle.onStop('database', () => db.close());
  await new ChainStore(db).initGenesis(parseGenesis(genesisJson({ pragueTime: undefined })));
  const jwtSecretPath = join(dir, 'jwt');
  writeFileSync(jwtSecretPath, '42'.repeat(32));
  node = await startExecNode(
    db,
    {
      rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth'] } },
      auth: { host: '127.0.0.1', port: 0, vhosts: undefined, jwtSecretPath },
      ipcPath: undefined,
      backend: {},
      callWorkers: 2,
      computePendingBlock: true,
      pendingRebuildMs: 0,
    },
    { logger, lifecycle },
  );
  user = new RpcClient({ url: (node.addresses[0] as { url: string }).url, timeoutMs: 60_000 }, { logger });
}, 120_000);

afterAll(async () => {
  await user?.close();
  await lifecycle.stop('test done');
  rmSync(dir, { recursive: true, force: true });
});

/** The longest gap between 2 ms timer ticks of this thread while `p` runs. */
async function maxStall<T>(p: () => Promise<T>): Promise<{ value: T; stallMs: number; tookMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 2);
  const started = performance.now();
  try {
    const value = await p();
    return { value, stallMs, tookMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe('pending block on a call worker', () => {
  it('holds the pooled transaction while the coordinator keeps its event loop turning', async () => {
    const raw = await ACCOUNT.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      nonce: 0,
      gas: LOOP_GAS,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      data: '0x5b600056', // JUMPDEST PUSH1 0 JUMP: loops until the gas is gone
    });
    const hash = await user.call<string>('eth_sendRawTransaction', [raw]);
    const {
      value: block,
      stallMs,
      tookMs,
    } = await maxStall(() =>
      user.call<{ number: string; gasUsed: string; transactions: string[] }>('eth_getBlockByNumber', [
        'pending',
        false,
      ]),
    );
    expect(block.number).toBe('0x1');
    expect(block.transactions).toEqual([hash]);
    expect(BigInt(block.gasUsed)).toBe(LOOP_GAS);
    // Built on this thread, the stall is the build itself (about the whole request); on a worker it is a small part.
    expect(tookMs).toBeGreaterThan(100);
    expect(stallMs).toBeLessThan(tookMs / 3);
  }, 60_000);
});
