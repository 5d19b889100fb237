// tern-devnet as a process: brings up what this build can run (layer 1, the execution engines, and the rollup
// nodes and batcher once their flags are built), checks devnet.json against the live endpoints, makes a deposit on
// layer 1 through the devnet portal and decodes it with derivation's decoder, checks that the replica agrees with the
// sequencer, and stops everything with SIGINT. Every role is built: a role missing from devnet.json, or a method a
// role does not serve, fails the test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { Devnet, type DevnetInfo } from '../../src/main/devnet/launcher.js';
import { getJson, rpcCall } from '../../src/main/devnet/rpc.js';
import { decodeDepositLog } from '../../src/main/node/derive/depositLog.js';
import { applyConfigUpdateLog, systemConfigFromGenesis } from '../../src/main/node/derive/systemConfig.js';
import { parseRollupConfig } from '../../src/main/primitives/rollup/config.js';
import { P256VERIFY_ADDRESS, P256VERIFY_SUCCESS, P256VERIFY_VALID_INPUT } from '../helpers/rip7212.js';
import { alive, DevnetChild, pollUntil } from './devnetChild.js';

const require = createRequire(import.meta.url);
const portalAbi = (
  require('contracts-bedrock-0173/forge-artifacts/OptimismPortal.sol/OptimismPortal.json') as { abi: unknown[] }
).abi;
const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

let workdir: string;
let devnet: DevnetChild | undefined;
let info: DevnetInfo;
/** The layer-1 deposit made by one test, looked for on layer 2 by the next. */
let deposited: { sourceHash: string; mint: bigint } | undefined;

/** The devnet's output so far (the last one started by the describe.each below). */
const out = (): string => devnet?.out ?? '';
const until = <T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> =>
  pollUntil(what, timeoutMs, out, f);

type L1Receipt = {
  status: string;
  blockHash: string;
  blockNumber: string;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
};

/** Signs and sends an L1 transaction and waits for its receipt. */
async function sendL1(key: string, to: `0x${string}`, data: `0x${string}`, value: bigint): Promise<L1Receipt> {
  const account = privateKeyToAccount(key as `0x${string}`);
  const nonce = Number(await rpcCall<string>(info.l1.rpc, 'eth_getTransactionCount', [account.address, 'pending']));
  const raw = await account.signTransaction({
    type: 'eip1559',
    chainId: 1337,
    nonce,
    to,
    value,
    data,
    gas: 200_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const hash = await rpcCall<string>(info.l1.rpc, 'eth_sendRawTransaction', [raw]);
  return until('the receipt', 30_000, async () => {
    const r = await rpcCall<L1Receipt | null>(info.l1.rpc, 'eth_getTransactionReceipt', [hash]);
    return r ?? undefined;
  });
}

describe.each(['blobs', 'calldata'] as const)('tern-devnet, %s batches', (da) => {
  beforeAll(async () => {
    deposited = undefined;
    devnet = new DevnetChild('tern-devnet-e2e-', ['--status-interval=2', '--l1-block-time=1', `--da=${da}`]);
    workdir = devnet.workdir;
    info = await devnet.ready(150_000);
  }, 180_000);

  afterAll(async () => devnet?.cleanup());

  it('devnet.json lists live endpoints with the genesis of rollup.json', async () => {
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as {
      genesis: { l1: { hash: string }; l2: { hash: string } };
    };
    expect(await rpcCall(info.l1.rpc, 'eth_chainId')).toBe('0x539');
    const l1Genesis = await rpcCall<{ hash: string }>(info.l1.rpc, 'eth_getBlockByNumber', ['0x0', false]);
    expect(l1Genesis.hash).toBe(rollup.genesis.l1.hash);
    const beacon = await getJson<{ data: { genesis_time: string } }>(`${info.l1.beacon}/eth/v1/beacon/genesis`);
    expect(Number(beacon.data.genesis_time)).toBeGreaterThan(0);
    // The L1's unlocked developer account holds funds, as geth --dev's and anvil's first account do.
    const [developer] = await rpcCall<string[]>(info.l1.rpc, 'eth_accounts');
    expect(BigInt(await rpcCall<string>(info.l1.rpc, 'eth_getBalance', [developer, 'latest']))).toBeGreaterThan(0n);
    const first = Number(await rpcCall<string>(info.l1.rpc, 'eth_blockNumber'));
    await until('layer 1 to seal a block', 20_000, async () =>
      Number(await rpcCall<string>(info.l1.rpc, 'eth_blockNumber')) > first ? true : undefined,
    );
    expect(info.nodes.map((n) => n.role)).toEqual(['sequencer', 'replica']);
    for (const n of info.nodes) {
      const g = await rpcCall<{ hash: string }>(n.execRpc, 'eth_getBlockByNumber', ['0x0', false]);
      expect(g.hash, n.name).toBe(rollup.genesis.l2.hash);
      expect(await rpcCall(n.execRpc, 'eth_chainId')).toBe('0x385');
      // The engine endpoint wants the JWT.
      await expect(rpcCall(n.engine, 'eth_chainId')).rejects.toThrow(/401|403/);
      if (n.nodeRpc !== null) {
        const status = await rpcCall<{ unsafe_l2?: unknown }>(n.nodeRpc, 'optimism_syncStatus');
        expect(status).toHaveProperty('unsafe_l2');
      }
    }
    // Every role runs: nothing is listed as missing, both rollup nodes and the batcher are up.
    expect(info.missing).toEqual([]);
    expect(info.batcher).not.toBeNull();
    for (const n of info.nodes) expect(n.nodeRpc, n.name).not.toBeNull();
    await until('a status line', 15_000, async () => (/L1 #\d+ \| sequencer u\d+/.test(out()) ? true : undefined));
  }, 60_000);

  it('eth_call runs the OP precompiles on every node: P256VERIFY (Fjord) verifies a RIP-7212 signature', async () => {
    for (const n of info.nodes) {
      const call = { to: P256VERIFY_ADDRESS, data: P256VERIFY_VALID_INPUT };
      expect(await rpcCall(n.execRpc, 'eth_call', [call, 'latest']), n.name).toBe(P256VERIFY_SUCCESS);
    }
  });

  it('a deposit on layer 1 emits the TransactionDeposited log derivation decodes', async () => {
    const user = info.accounts.find((a) => a.role === 'test');
    if (!user) throw new Error('devnet.json lists no test account');
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as { deposit_contract_address: `0x${string}` };
    const to = '0x00000000000000000000000000000000000000aa';
    const data = encodeFunctionData({
      abi: portalAbi,
      functionName: 'depositTransaction',
      args: [to, 5n, 100_000n, false, '0xc0ffee'],
    });
    const receipt = await sendL1(user.privateKey, rollup.deposit_contract_address, data, 10n ** 15n);
    expect(receipt.status).toBe('0x1');
    expect(receipt.logs).toHaveLength(1);
    const log = receipt.logs[0] as (typeof receipt.logs)[number];
    const tx = decodeDepositLog(
      { address: hexBytes(log.address), topics: log.topics.map(hexBytes), data: hexBytes(log.data) },
      receipt.blockHash,
      Number(log.logIndex),
    );
    expect(`0x${Buffer.from(tx.from).toString('hex')}`).toBe(user.address);
    expect(tx.to && `0x${Buffer.from(tx.to).toString('hex')}`).toBe(to);
    expect(tx.mint).toBe(10n ** 15n);
    expect(tx.value).toBe(5n);
    expect(tx.gasLimit).toBe(100_000n);
    expect(`0x${Buffer.from(tx.data).toString('hex')}`).toBe('0xc0ffee');
    deposited = { sourceHash: `0x${Buffer.from(tx.sourceHash).toString('hex')}`, mint: tx.mint };
  }, 60_000);

  it('the deposit appears on layer 2 with its source hash and mint, on the sequencer and the replica', async () => {
    expect(info.missing).toEqual([]);
    if (deposited === undefined) throw new Error('the layer-1 deposit test did not run');
    const want = deposited;
    for (const n of info.nodes) {
      const found = await until(`the deposit on ${n.name}`, 120_000, async () => {
        const head = Number(await rpcCall<string>(n.execRpc, 'eth_blockNumber'));
        for (let i = head; i >= 1; i--) {
          const b = await rpcCall<{ transactions: Array<{ type: string; sourceHash?: string; mint?: string }> }>(
            n.execRpc,
            'eth_getBlockByNumber',
            [`0x${i.toString(16)}`, true],
          );
          const tx = b.transactions.find((t) => t.type === '0x7e' && t.sourceHash === want.sourceHash);
          if (tx) return tx;
        }
        return undefined;
      });
      expect(BigInt(found.mint ?? '0x0'), n.name).toBe(want.mint);
    }
  }, 150_000);

  it('a system config update on layer 1 emits the ConfigUpdate log derivation applies', async () => {
    const admin = info.accounts.find((a) => a.role === 'admin');
    if (!admin) throw new Error('devnet.json lists no admin account');
    const json = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as { l1_system_config_address: `0x${string}` };
    const abi = parseAbi(['function setGasLimit(uint64)']);
    const data = encodeFunctionData({ abi, functionName: 'setGasLimit', args: [45_000_000n] });
    const receipt = await sendL1(admin.privateKey, json.l1_system_config_address, data, 0n);
    expect(receipt.status).toBe('0x1');
    const cfg = parseRollupConfig(json);
    const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
    const log = receipt.logs[0] as L1Receipt['logs'][number];
    applyConfigUpdateLog(
      sc,
      { address: hexBytes(log.address), topics: log.topics.map(hexBytes), data: hexBytes(log.data) },
      cfg,
      0,
    );
    expect(sc.gasLimit).toBe(45_000_000n);
  }, 60_000);

  it('the replica follows the sequencer: its safe head advances and every block hash matches', async () => {
    const [seq, replica] = info.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
    expect(info.missing).toEqual([]);
    if (seq.nodeRpc === null || replica.nodeRpc === null || info.batcher === null)
      throw new Error(`the devnet runs without a rollup node or the batcher: ${info.missing.join('; ')}`);
    const safe = await until('the replica safe head past block 3', 120_000, async () => {
      const s = await rpcCall<{ safe_l2: { number: number } }>(replica.nodeRpc as string, 'optimism_syncStatus');
      return s.safe_l2.number >= 3 ? s.safe_l2.number : undefined;
    });
    for (let n = 1; n <= safe; n++) {
      const q = [`0x${n.toString(16)}`, false];
      const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
      const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
      expect(b.hash, `block ${n}`).toBe(a.hash);
    }
    // The batches reached layer 1 the way --da asked.
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as { batch_inbox_address: string };
    const head = Number(await rpcCall<string>(info.l1.rpc, 'eth_blockNumber'));
    const types = new Set<string>();
    for (let n = 1; n <= head; n++) {
      const b = await rpcCall<{ transactions: Array<{ to: string | null; type: string }> }>(
        info.l1.rpc,
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, true],
      );
      for (const tx of b.transactions) if (tx.to === rollup.batch_inbox_address) types.add(tx.type);
    }
    expect([...types]).toEqual([da === 'blobs' ? '0x3' : '0x2']);
  }, 150_000);

  it('layer 1 marks safe and finalized blocks (every 32), and the finalized L2 heads advance on both nodes', async () => {
    // geth's simulated beacon: the head is safe, the latest block at a multiple of 32 is finalized.
    const l1 = async (tag: string) =>
      rpcCall<{ number: string; hash: string }>(info.l1.rpc, 'eth_getBlockByNumber', [tag, false]);
    const fin = await until('layer 1 to finalize block 32', 90_000, async () => {
      const f = await l1('finalized');
      return Number(f.number) >= 32 ? f : undefined;
    });
    expect(Number(fin.number) % 32).toBe(0);
    expect(fin.hash).toBe((await l1(fin.number)).hash);
    const [safe, latest] = [await l1('safe'), await l1('latest')];
    expect(Number(safe.number)).toBeGreaterThanOrEqual(Number(fin.number));
    expect(Number(safe.number)).toBeLessThanOrEqual(Number(latest.number));
    const [seq, replica] = info.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
    expect(info.missing).toEqual([]);
    if (seq.nodeRpc === null || replica.nodeRpc === null || info.batcher === null)
      throw new Error(`the devnet runs without a rollup node or the batcher: ${info.missing.join('; ')}`);
    const finalized: Record<string, number> = {};
    for (const n of [seq, replica]) {
      finalized[n.name] = await until(`a finalized L2 head on ${n.name}`, 90_000, async () => {
        const s = await rpcCall<{ finalized_l2: { number: number }; finalized_l1: { number: number } }>(
          n.nodeRpc as string,
          'optimism_syncStatus',
        );
        return s.finalized_l2.number > 0 && s.finalized_l1.number >= 32 ? s.finalized_l2.number : undefined;
      });
      // The node reports its finalized head before its next forkchoiceUpdated carries it to the engine (op-node
      // does the same), so the engine's `finalized` tag follows shortly after.
      const b = await until(`the finalized tag on ${n.name}'s engine`, 30_000, async () => {
        const blk = await rpcCall<{ hash: string; number: string }>(n.execRpc, 'eth_getBlockByNumber', [
          'finalized',
          false,
        ]);
        return Number(blk.number) > 0 ? blk : undefined;
      });
      expect(b.hash, n.name).toBe(
        (await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', [b.number, false])).hash,
      );
    }
    // The live view shows the finalized heads (f<n> with n > 0) of both nodes.
    await until('a status line with finalized heads', 20_000, async () =>
      /sequencer u\d+ s\d+ f[1-9]\d*/.test(out()) && /replica-1 u\d+ s\d+ f[1-9]\d*/.test(out()) ? true : undefined,
    );
  }, 200_000);

  it('a layer-1 reorg dropping a batch transaction: tern-node resets derivation and the replica converges', async () => {
    const [seq, replica] = info.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
    expect(info.missing).toEqual([]);
    if (seq.nodeRpc === null || replica.nodeRpc === null || info.batcher === null)
      throw new Error(`the devnet runs without a rollup node or the batcher: ${info.missing.join('; ')}`);
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as { batch_inbox_address: string };
    type L1Block = { hash: string; number: string; transactions: Array<{ hash: string; to: string | null }> };
    const block = (tag: string | number) =>
      rpcCall<L1Block>(info.l1.rpc, 'eth_getBlockByNumber', [
        typeof tag === 'number' ? `0x${tag.toString(16)}` : tag,
        true,
      ]);
    const resets = (file: string) => (readFileSync(file, 'utf8').match(/Derivation reset/g) ?? []).length;
    const resetsBefore = resets(replica.logs.node);
    type Reorg = { depth: number; oldHead: { number: string }; ancestor: { number: string }; dropped: string[] };
    let reorg: Reorg | undefined;
    let batch: { number: number; hash: string; tx: string } | undefined;
    for (let attempt = 0; attempt < 10 && reorg === undefined; attempt++) {
      // A batch transaction in one of the last blocks, above the finalized block (a reorg never replaces it).
      const found = await until('a recent batch transaction above the finalized L1 block', 60_000, async () => {
        const head = Number((await block('latest')).number);
        const fin = Number((await block('finalized')).number);
        for (let n = head; n > Math.max(fin, head - 3); n--) {
          const b = await block(n);
          const tx = b.transactions.find((t) => t.to === rollup.batch_inbox_address);
          if (tx) return { head, fin, number: n, hash: b.hash, tx: tx.hash };
        }
        return undefined;
      });
      const depth = Math.min(found.head - found.number + 2, found.head - found.fin);
      try {
        const r = await rpcCall<Reorg>(info.l1.rpc, 'dev_reorg', [depth]);
        if (r.dropped.includes(found.tx)) {
          reorg = r;
          batch = found;
        }
      } catch (err) {
        // A block sealed meanwhile crossed an epoch boundary and finalized what the reorg would replace: again.
        if (!/finalized block/.test((err as Error).message)) throw err;
      }
    }
    if (reorg === undefined || batch === undefined) throw new Error(`no reorg dropped a batch transaction:\n${out()}`);
    expect(reorg.depth).toBeGreaterThanOrEqual(1);
    // The block that held the batch was replaced.
    expect((await block(batch.number)).hash).not.toBe(batch.hash);
    const safeBefore = (await rpcCall<{ safe_l2: { number: number } }>(replica.nodeRpc, 'optimism_syncStatus')).safe_l2
      .number;
    // The replica's derivation saw the reorg and reset.
    await until('the replica to reset derivation', 60_000, async () =>
      resets(replica.logs.node) > resetsBefore ? true : undefined,
    );
    // It converges: safe head well past where it was, on the new L1 chain, every block as the sequencer has it.
    const status = await until('the replica safe head to advance after the reorg', 150_000, async () => {
      const s = await rpcCall<{ safe_l2: { number: number }; current_l1: { number: number; hash: string } }>(
        replica.nodeRpc as string,
        'optimism_syncStatus',
      );
      return s.safe_l2.number >= safeBefore + 4 && s.current_l1.number > Number(reorg?.oldHead.number) ? s : undefined;
    });
    expect(status.current_l1.hash).toBe((await block(status.current_l1.number)).hash);
    for (let n = 1; n <= status.safe_l2.number; n++) {
      const q = [`0x${n.toString(16)}`, false];
      const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
      const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
      expect(b.hash, `block ${n}`).toBe(a.hash);
    }
    if (da === 'calldata') {
      // The pool took the dropped calldata batch back and a later block carries it.
      const r = await until(
        'the dropped batch transaction to be included again',
        30_000,
        async () =>
          (await rpcCall<{ blockHash: string } | null>(info.l1.rpc, 'eth_getTransactionReceipt', [batch?.tx])) ??
          undefined,
      );
      expect(r.blockHash).not.toBe(batch.hash);
    }
  }, 400_000);

  it('the sequencer stopped and started through the admin API continues from the same head', async () => {
    const seq = info.nodes[0] as DevnetInfo['nodes'][number];
    if (seq.nodeRpc === null) throw new Error(`the devnet runs without its sequencer: ${info.missing.join('; ')}`);
    const rpc = seq.nodeRpc;
    expect(await rpcCall(rpc, 'admin_sequencerActive')).toBe(true);
    const last = await rpcCall<string>(rpc, 'admin_stopSequencer');
    expect(await rpcCall(rpc, 'admin_sequencerActive')).toBe(false);
    await new Promise((r) => setTimeout(r, 2 * info.l2.blockTime * 1000 + 500));
    const head = await rpcCall<{ hash: string; number: string }>(seq.execRpc, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    expect(head.hash).toBe(last);
    await rpcCall(rpc, 'admin_startSequencer', [last]);
    const next = await until('a block after the restart', 30_000, async () => {
      const q = [`0x${(Number(head.number) + 1).toString(16)}`, false];
      return (await rpcCall<{ parentHash: string } | null>(seq.execRpc, 'eth_getBlockByNumber', q)) ?? undefined;
    });
    expect(next.parentHash).toBe(last);
  }, 60_000);

  it('Ctrl-C stops every process cleanly and says where the logs are', async () => {
    devnet?.child.kill('SIGINT');
    const code = await Promise.race([devnet?.exitCode, new Promise((r) => setTimeout(() => r('timeout'), 45_000))]);
    expect(code, out()).toBe(0);
    expect(out()).toContain(`logs are in ${workdir}/logs`);
    const pids = [info.l1.pid, ...info.nodes.flatMap((n) => [n.pids.exec, n.pids.node]), info.batcher?.pid];
    for (const pid of pids) if (pid !== undefined) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(readFileSync(join(workdir, 'logs', 'l1.log'), 'utf8')).toMatch(/Shutting down/);
  }, 60_000);
});

describe('tern-devnet in-process: a replica killed mid-sync', () => {
  it('resumes after both its programs are killed and restarted, and converges with the sequencer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-devnet-e2e-restart-'));
    const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1-block-time=1', '--da=calldata']);
    if (opts === 'help') throw new Error('unexpected help');
    const devnet = new Devnet(opts, { print: () => {} });
    try {
      const started = await devnet.start();
      expect(started.missing).toEqual([]);
      const [seq, replica] = started.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
      const safeOf = async () =>
        (await rpcCall<{ safe_l2: { number: number } }>(replica.nodeRpc as string, 'optimism_syncStatus')).safe_l2
          .number;
      const before = await until('the replica safe head past block 3', 120_000, async () => {
        const s = await safeOf();
        return s >= 3 ? s : undefined;
      });
      await devnet.restart('replica-1-node', { kill: true });
      await devnet.restart('replica-1-exec', { kill: true });
      const after = await until('the restarted replica to advance', 120_000, async () => {
        const s = await safeOf();
        return s >= before + 4 ? s : undefined;
      });
      for (let n = 1; n <= after; n++) {
        const q = [`0x${n.toString(16)}`, false];
        const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
        const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
        expect(b.hash, `block ${n}`).toBe(a.hash);
      }
      const died = await Promise.race([devnet.died, new Promise((r) => setTimeout(() => r('none'), 10))]);
      expect(died).toBe('none');
    } finally {
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(devnet.processes.every((p) => !p.running)).toBe(true);
  }, 360_000);
});

describe('tern-devnet with --l1 anvil', () => {
  it('blob batches and a deposit on anvil: the replica agrees with the sequencer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-devnet-e2e-anvil-'));
    const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1', 'anvil', '--l1-block-time=1', '--da=blobs']);
    if (opts === 'help') throw new Error('unexpected help');
    const lines: string[] = [];
    const devnet = new Devnet(opts, { print: (l) => lines.push(l) });
    const wait = <T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> =>
      pollUntil(what, timeoutMs, () => lines.join('\n'), f);
    try {
      const started = await devnet.start();
      expect(started.missing).toEqual([]);
      expect(started.l1.program).toBe('anvil');
      expect(lines.join('\n')).toMatch(/--l1\.trustrpc/);
      // rollup.json names anvil's own block 0, and the nodes were told to trust the RPC.
      const rollupJson = JSON.parse(readFileSync(started.rollupConfig, 'utf8')) as {
        genesis: { l1: { hash: string } };
        deposit_contract_address: `0x${string}`;
        batch_inbox_address: string;
      };
      const l1 = started.l1.rpc;
      const g0 = await rpcCall<{ hash: string; timestamp: string }>(l1, 'eth_getBlockByNumber', ['0x0', false]);
      expect(rollupJson.genesis.l1.hash).toBe(g0.hash);
      expect(await rpcCall(l1, 'eth_chainId')).toBe('0x539');
      const nodeProc = devnet.processes.find((p) => p.spec.name === 'replica-1-node');
      expect(nodeProc?.spec.args).toContain('--l1.trustrpc');
      // The beacon proxy: anvil's genesis time and 1-second slots.
      const bg = await getJson<{ data: { genesis_time: string } }>(`${started.l1.beacon}/eth/v1/beacon/genesis`);
      expect(Number(bg.data.genesis_time)).toBe(Number(g0.timestamp));
      const spec = await getJson<{ data: { SECONDS_PER_SLOT: string } }>(`${started.l1.beacon}/eth/v1/config/spec`);
      expect(spec.data.SECONDS_PER_SLOT).toBe('1');

      // A deposit through the devnet portal on anvil.
      const user = started.accounts.find((a) => a.role === 'test');
      if (!user) throw new Error('devnet.json lists no test account');
      const account = privateKeyToAccount(user.privateKey as `0x${string}`);
      const data = encodeFunctionData({
        abi: portalAbi,
        functionName: 'depositTransaction',
        args: ['0x00000000000000000000000000000000000000aa', 5n, 100_000n, false, '0xc0ffee'],
      });
      const nonce = Number(await rpcCall<string>(l1, 'eth_getTransactionCount', [account.address, 'pending']));
      const raw = await account.signTransaction({
        type: 'eip1559',
        chainId: 1337,
        nonce,
        to: rollupJson.deposit_contract_address,
        value: 10n ** 15n,
        data,
        gas: 200_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      const txHash = await rpcCall<string>(l1, 'eth_sendRawTransaction', [raw]);
      const receipt = await wait('the deposit receipt', 30_000, async () => {
        const r = await rpcCall<L1Receipt | null>(l1, 'eth_getTransactionReceipt', [txHash]);
        return r ?? undefined;
      });
      expect(receipt.status).toBe('0x1');
      const log = receipt.logs[0] as L1Receipt['logs'][number];
      const dep = decodeDepositLog(
        { address: hexBytes(log.address), topics: log.topics.map(hexBytes), data: hexBytes(log.data) },
        receipt.blockHash,
        Number(log.logIndex),
      );
      const sourceHash = `0x${Buffer.from(dep.sourceHash).toString('hex')}`;

      // The deposit lands in an L2 block the replica derives as safe, from blob batches, as the sequencer has it.
      const [seq, replica] = started.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
      const depositBlock = await wait('the deposit on the sequencer', 120_000, async () => {
        const head = Number(await rpcCall<string>(seq.execRpc, 'eth_blockNumber'));
        for (let i = head; i >= 1; i--) {
          const b = await rpcCall<{ transactions: Array<{ type: string; sourceHash?: string }> }>(
            seq.execRpc,
            'eth_getBlockByNumber',
            [`0x${i.toString(16)}`, true],
          );
          if (b.transactions.some((t) => t.type === '0x7e' && t.sourceHash === sourceHash)) return i;
        }
        return undefined;
      });
      const safe = await wait('the replica safe head past the deposit block', 180_000, async () => {
        const s = await rpcCall<{ safe_l2: { number: number } }>(replica.nodeRpc as string, 'optimism_syncStatus');
        return s.safe_l2.number >= Math.max(depositBlock, 3) ? s.safe_l2.number : undefined;
      });
      for (let n = 1; n <= safe; n++) {
        const q = [`0x${n.toString(16)}`, false];
        const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
        const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
        expect(b.hash, `block ${n}`).toBe(a.hash);
      }
      const head = Number(await rpcCall<string>(l1, 'eth_blockNumber'));
      const types = new Set<string>();
      for (let n = 1; n <= head; n++) {
        const b = await rpcCall<{ transactions: Array<{ to: string | null; type: string }> }>(
          l1,
          'eth_getBlockByNumber',
          [`0x${n.toString(16)}`, true],
        );
        for (const tx of b.transactions) if (tx.to === rollupJson.batch_inbox_address) types.add(tx.type);
      }
      expect([...types]).toEqual(['0x3']);
      const died = await Promise.race([devnet.died, new Promise((r) => setTimeout(() => r('none'), 10))]);
      expect(died).toBe('none');
    } finally {
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(devnet.processes.every((p) => !p.running)).toBe(true);
  }, 360_000);
});
