// tern-devnet --da altda as a process: the batcher stores its frames on the DA server (tern-da-server, its own
// process) and posts keccak commitments to L1; the replica derives from them and agrees with the sequencer block
// for block; with the DA server stopped the safe heads stall without a derivation error logged, and once the
// server runs again (its devnet.json command line) the replica catches up. About 60 s here.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { L1_DA_CHALLENGE_ADDRESS } from '../../src/main/devnet/altDa.js';
import type { DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { decodeCommitmentTxData, KECCAK_COMMITMENT } from '../../src/main/protocol/altda/commitment.js';
import { alive, DevnetChild } from './devnetChild.js';

let devnet: DevnetChild;
let info: DevnetInfo;
let restarted: ReturnType<typeof spawn> | undefined;

type SyncStatus = { safe_l2: { number: number } };
type Node = DevnetInfo['nodes'][number];
const status = (n: Node) => rpcCall<SyncStatus>(n.nodeRpc as string, 'optimism_syncStatus');
const until = <T>(what: string, ms: number, f: () => Promise<T | undefined>) => devnet.until(what, ms, f);

describe('tern-devnet --da altda', () => {
  beforeAll(async () => {
    devnet = new DevnetChild('tern-devnet-altda-e2e-', ['--da=altda', '--replicas=1', '--l1-block-time=1']);
    info = await devnet.ready(75_000);
  }, 80_000);

  afterAll(async () => {
    // Ctrl-C stops every child (batcher and DA server included); whatever is left is killed.
    if (devnet?.child.exitCode === null) {
      devnet.child.kill('SIGINT');
      await Promise.race([devnet.exitCode, new Promise((r) => setTimeout(r, 25_000))]);
    }
    restarted?.kill('SIGTERM');
    for (const pid of [info?.batcher?.pid, info?.daServer?.pid]) if (alive(pid)) process.kill(pid as number, 'SIGKILL');
    devnet?.cleanup();
  }, 40_000);

  it('the replica derives from alt-DA commitments and agrees with the sequencer', async () => {
    expect(info.missing).toEqual([]);
    expect(info.daServer?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [seq, replica] = info.nodes as [Node, Node];
    const target = await until('the sequencer safe head past block 3', 40_000, async () => {
      const s = (await status(seq)).safe_l2.number;
      return s >= 3 ? s : undefined;
    });
    await until(`the replica safe head at ${target}`, 30_000, async () =>
      (await status(replica)).safe_l2.number >= target ? true : undefined,
    );
    for (let n = 1; n <= target; n++) {
      const q = [`0x${n.toString(16)}`, false];
      const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
      const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
      expect(b.hash, `block ${n}`).toBe(a.hash);
    }
    // The inputs sit on the DA server's disk, and the inbox holds only 34-byte keccak commitments.
    expect(readdirSync(join(info.workdir, 'da')).length).toBeGreaterThan(0);
    const inbox = (readFileSync(info.rollupConfig, 'utf8').match(/"batch_inbox_address": "(0x[0-9a-f]+)"/) ?? [])[1];
    const head = Number.parseInt(await rpcCall<string>(info.l1.rpc, 'eth_blockNumber', []), 16);
    let commitments = 0;
    for (let n = 1; n <= head; n++) {
      const b = await rpcCall<{ transactions: Array<{ to: string; input: string }> }>(
        info.l1.rpc,
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, true],
      );
      for (const tx of b.transactions.filter((t) => t.to === inbox)) {
        const data = Uint8Array.from(Buffer.from(tx.input.slice(2), 'hex'));
        expect(data.length).toBe(34);
        expect(decodeCommitmentTxData(data).type).toBe(KECCAK_COMMITMENT);
        commitments++;
      }
    }
    expect(commitments).toBeGreaterThan(0);
  }, 90_000);

  it('a stopped DA server stalls the safe heads without errors; started again, the replica catches up', async () => {
    const [seq, replica] = info.nodes as [Node, Node];
    const da = info.daServer as NonNullable<DevnetInfo['daServer']>;
    process.kill(da.pid as number, 'SIGTERM');
    await until('the DA server stopped', 10_000, async () => (alive(da.pid as number) ? undefined : true));
    // Whatever was already derived stays; after a while without the server the safe head no longer moves.
    await new Promise((r) => setTimeout(r, 4000));
    const stalled = (await status(replica)).safe_l2.number;
    await new Promise((r) => setTimeout(r, 8000));
    expect((await status(replica)).safe_l2.number).toBe(stalled);
    const log = readFileSync(replica.logs.node, 'utf8');
    expect(log).not.toMatch(/lvl=eror/);
    // Started again with the same port and directory, the batcher's retried frames land and derivation resumes.
    const [cmd, ...args] = da.command as [string, ...string[]];
    restarted = spawn(cmd, args, { stdio: 'ignore' });
    const seqSafe = await until('the sequencer safe head moving again', 40_000, async () => {
      const s = (await status(seq)).safe_l2.number;
      return s > stalled ? s : undefined;
    });
    await until(`the replica safe head at ${seqSafe}`, 30_000, async () =>
      (await status(replica)).safe_l2.number >= seqSafe ? true : undefined,
    );
    const q = [`0x${seqSafe.toString(16)}`, false];
    const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
    const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
    expect(b.hash).toBe(a.hash);
  }, 120_000);

  it('a commitment challenged on the L1 contract and resolved with its input is tracked by the replica', async () => {
    const replica = info.nodes[1] as Node;
    const test = info.accounts.find((a) => a.role === 'test') as { privateKey: string };
    const cast = (...args: string[]) =>
      execFileSync(join('node_modules', '.bin', 'cast'), [...args, '--rpc-url', info.l1.rpc], {
        encoding: 'utf8',
      }).trim();
    // The contract sits initialized in the L1 genesis with the rollup config's windows.
    expect(cast('call', L1_DA_CHALLENGE_ADDRESS, 'challengeWindow()(uint256)')).toBe('16');
    expect(cast('call', L1_DA_CHALLENGE_ADDRESS, 'resolveWindow()(uint256)')).toBe('16');
    const inbox = (readFileSync(info.rollupConfig, 'utf8').match(/"batch_inbox_address": "(0x[0-9a-f]+)"/) ?? [])[1];
    // The newest commitment on L1 (still inside its challenge window).
    const found = await until('a recent commitment on L1', 30_000, async () => {
      const head = Number.parseInt(await rpcCall<string>(info.l1.rpc, 'eth_blockNumber', []), 16);
      for (let n = head; n > head - 8 && n > 0; n--) {
        const b = await rpcCall<{ transactions: Array<{ to: string; input: string }> }>(
          info.l1.rpc,
          'eth_getBlockByNumber',
          [`0x${n.toString(16)}`, true],
        );
        const t = b.transactions.find((x) => x.to === inbox);
        if (t) return { block: n, commitment: `0x${t.input.slice(4)}` };
      }
      return undefined;
    });
    const bond = cast('call', L1_DA_CHALLENGE_ADDRESS, 'bondSize()(uint256)').split(' ')[0] as string;
    const send = (...args: string[]) =>
      cast('send', '--private-key', test.privateKey, L1_DA_CHALLENGE_ADDRESS, ...args);
    send('deposit()', '--value', bond);
    send('challenge(uint256,bytes)', String(found.block), found.commitment);
    expect(
      cast(
        'call',
        L1_DA_CHALLENGE_ADDRESS,
        'getChallengeStatus(uint256,bytes)(uint8)',
        String(found.block),
        found.commitment,
      ),
    ).toBe('1');
    const da = info.daServer as NonNullable<DevnetInfo['daServer']>;
    const stored = Buffer.from(await (await fetch(`${da.url}/get/${found.commitment}`)).arrayBuffer()).toString('hex');
    send('resolve(uint256,bytes,bytes)', String(found.block), found.commitment, `0x${stored}`);
    expect(
      cast(
        'call',
        L1_DA_CHALLENGE_ADDRESS,
        'getChallengeStatus(uint256,bytes)(uint8)',
        String(found.block),
        found.commitment,
      ),
    ).toBe('2');
    // The replica read both status changes from the receipts, and the resolve() calldata verified.
    await until('the replica logging the resolution', 30_000, async () => {
      const log = readFileSync(replica.logs.node, 'utf8');
      return /alt-DA challenge opened/.test(log) && /alt-DA challenge resolved/.test(log) ? true : undefined;
    });
    expect(readFileSync(replica.logs.node, 'utf8')).not.toMatch(
      /ignoring challenge resolution|does not match its commitment/,
    );
  }, 90_000);
});
