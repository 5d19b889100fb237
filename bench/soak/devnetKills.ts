// kill -9 at random points of a running devnet: the sequencer's tern-exec or tern-node, or the replica's, is killed
// (SIGKILL) at a random moment and started again with the same command line and data, again and again. After each
// kill nothing may be lost: the sequencer's chain continues from where it was (the blocks it had before the kill
// keep their hashes, its head passes the old one), and at the end the replica's safe chain is the sequencer's, block
// for block. Used by `npm run soak:devnet` (20 kills) and by the e2e test (a CI-sized few).
import type { Devnet, DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';

/** The processes killed: both programs of the sequencer and of the first replica. */
export const KILL_TARGETS = ['sequencer-exec', 'sequencer-node', 'replica-1-exec', 'replica-1-node'] as const;

export interface KillRound {
  target: string;
  /** The sequencer's head before the kill. */
  before: { number: number; hash: string };
  /** The sequencer's head once it had passed `before` again. */
  after: number;
  /** ms from the kill until the sequencer's head passed `before` and every process answered. */
  recoveryMs: number;
}

export interface KillSoakResult {
  rounds: KillRound[];
  /** The replica's safe head at the end, every block up to it checked against the sequencer. */
  replicaSafe: number;
}

type Block = { number: string; hash: string };
type SyncStatus = { safe_l2: { number: number } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` every 250 ms until it gives a value, failing after `timeoutMs` with `what`. */
async function until<T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

const head = async (rpc: string): Promise<Block> =>
  rpcCall<Block>(rpc, 'eth_getBlockByNumber', ['latest', false]) as Promise<Block>;
const blockHash = async (rpc: string, n: number): Promise<string | undefined> =>
  (await rpcCall<Block | null>(rpc, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]))?.hash;

/**
 * Runs `kills` rounds on a started devnet (one sequencer, at least one replica, engines over HTTP): waits a random
 * 0.5–`maxGapMs` ms, SIGKILLs a random target, restarts it, and waits (at most `recoveryTimeoutMs`) until the
 * sequencer's chain has kept its blocks and passed its old head. Throws on anything lost or not recovered.
 */
export async function killSoak(
  devnet: Devnet,
  info: DevnetInfo,
  opts: {
    kills: number;
    random?: () => number;
    maxGapMs?: number;
    recoveryTimeoutMs?: number;
    log?: (line: string) => void;
  },
): Promise<KillSoakResult> {
  const random = opts.random ?? Math.random;
  const [seq, replica] = info.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
  if (seq === undefined || replica === undefined || seq.nodeRpc === null || replica.nodeRpc === null) {
    throw new Error('the kill soak needs a sequencer and a replica with rollup nodes');
  }
  const timeout = opts.recoveryTimeoutMs ?? 120_000;
  const rounds: KillRound[] = [];
  for (let i = 0; i < opts.kills; i++) {
    await sleep(500 + random() * ((opts.maxGapMs ?? 6000) - 500));
    const target = KILL_TARGETS[Math.floor(random() * KILL_TARGETS.length)] as string;
    const h = await head(seq.execRpc);
    const before = { number: Number(h.number), hash: h.hash };
    const killedAt = performance.now();
    await devnet.restart(target, { kill: true });
    // Every process answers again, and the sequencer's chain kept the block it had and moved past it.
    await until(`${target} to answer after kill -9 (round ${i + 1})`, timeout, async () => {
      await rpcCall(seq.nodeRpc as string, 'optimism_syncStatus');
      await rpcCall(replica.nodeRpc as string, 'optimism_syncStatus');
      await rpcCall(replica.execRpc, 'eth_chainId');
      return true;
    });
    const after = await until(
      `the sequencer to pass block ${before.number} (round ${i + 1}, ${target})`,
      timeout,
      async () => {
        const n = Number((await head(seq.execRpc)).number);
        return n > before.number ? n : undefined;
      },
    );
    const kept = await blockHash(seq.execRpc, before.number);
    if (kept !== before.hash) {
      throw new Error(
        `round ${i + 1} (${target}): the sequencer's block ${before.number} was ${before.hash}, is ${kept} after kill -9`,
      );
    }
    const round = { target, before, after, recoveryMs: Math.round(performance.now() - killedAt) };
    rounds.push(round);
    opts.log?.(`kill ${i + 1}/${opts.kills}: ${target} at block ${before.number}, recovered in ${round.recoveryMs} ms`);
  }
  // The replica's safe chain catches up past where the sequencer was at the last kill and agrees block for block.
  const last = rounds.at(-1)?.before.number ?? 0;
  const replicaSafe = await until(`the replica's safe head past block ${last}`, 4 * timeout, async () => {
    const s = (await rpcCall<SyncStatus>(replica.nodeRpc as string, 'optimism_syncStatus')).safe_l2.number;
    return s > last ? s : undefined;
  });
  for (let n = 1; n <= replicaSafe; n++) {
    const [a, b] = [await blockHash(seq.execRpc, n), await blockHash(replica.execRpc, n)];
    if (a === undefined || a !== b) throw new Error(`block ${n}: the sequencer has ${a}, the replica ${b}`);
  }
  return { rounds, replicaSafe };
}
