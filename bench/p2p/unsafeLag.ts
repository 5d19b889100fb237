// npm run bench:unsafe-lag [seconds] [-- devnet flags]: how far a devnet replica's unsafe head trails the
// sequencer's when blocks arrive over P2P gossip. Starts a fresh tern-devnet (npm start's defaults unless flags are
// given), waits until the replica follows, then samples both nodes' optimism_syncStatus every 250 ms for `seconds`
// (default 60) and prints:
//  - the lag in blocks per sample (sequencer unsafe number − replica unsafe number): median and max;
//  - the lag in ms per block: when the replica's unsafe head first reached block N minus when the sequencer's did
//    (each time known to one sampling period, 250 ms): median and max.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { Devnet, type NodeInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';

const SAMPLE_MS = 250;
const seconds = Number(process.argv[2] ?? 60);
const devnetFlags = process.argv.slice(3);

type Status = { unsafe_l2: { number: number } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unsafeOf = async (n: NodeInfo) =>
  (await rpcCall<Status>(n.nodeRpc as string, 'optimism_syncStatus')).unsafe_l2.number;

/** The median and the max of `xs` (sorted copy). */
function medianMax(xs: readonly number[]): { median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? Number.NaN, max: s.at(-1) ?? Number.NaN };
}

const dir = mkdtempSync(join(tmpdir(), 'tern-bench-unsafe-lag-'));
const opts = parseDevnetArgs([`--workdir=${dir}`, ...devnetFlags]);
if (opts === 'help') throw new Error('unexpected help');
const devnet = new Devnet(opts, { print: () => undefined });
let failed: unknown;
try {
  const info = await devnet.start();
  const [seq, replica] = info.nodes as [NodeInfo, NodeInfo | undefined];
  if (replica === undefined) throw new Error('the devnet has no replica (--replicas 0)');
  // Warm-up: the replica has peered and follows (its unsafe head moved past the sequencer's first few blocks).
  const warmDeadline = Date.now() + 120_000;
  for (;;) {
    const [s, r] = await Promise.all([unsafeOf(seq), unsafeOf(replica)]).catch(() => [0, 0]);
    if (s > 3 && s - r <= 1) break;
    if (Date.now() > warmDeadline)
      throw new Error(`the replica did not start following (sequencer ${s}, replica ${r})`);
    await sleep(SAMPLE_MS);
  }
  const lagBlocks: number[] = [];
  const seqSeen = new Map<number, number>();
  const replicaSeen = new Map<number, number>();
  const note = (seen: Map<number, number>, head: number, t: number, from: number) => {
    for (let n = from; n <= head; n++) if (!seen.has(n)) seen.set(n, t);
  };
  const [s0, r0] = await Promise.all([unsafeOf(seq), unsafeOf(replica)]);
  // Blocks at or below what either head already had are not timed: their first-seen times are unknown.
  const firstTimed = Math.max(s0, r0) + 1;
  const end = Date.now() + seconds * 1000;
  let errors = 0;
  while (Date.now() < end) {
    const started = Date.now();
    try {
      const [s, r] = await Promise.all([unsafeOf(seq), unsafeOf(replica)]);
      const t = Date.now();
      lagBlocks.push(s - r);
      note(seqSeen, s, t, firstTimed);
      note(replicaSeen, r, t, firstTimed);
    } catch {
      errors++;
    }
    await sleep(Math.max(0, SAMPLE_MS - (Date.now() - started)));
  }
  const lagMs: number[] = [];
  for (const [n, t] of replicaSeen) {
    const ts = seqSeen.get(n);
    if (ts !== undefined) lagMs.push(t - ts);
  }
  const blocks = medianMax(lagBlocks);
  const ms = medianMax(lagMs);
  const summary = {
    seconds,
    blockTime: opts.blockTime,
    samples: lagBlocks.length,
    sampleErrors: errors,
    blocksTimed: lagMs.length,
    lagBlocksMedian: blocks.median,
    lagBlocksMax: blocks.max,
    lagMsMedian: ms.median,
    lagMsMax: ms.max,
    resolutionMs: SAMPLE_MS,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} catch (err) {
  failed = err;
  process.stdout.write(`FAILED: ${err instanceof Error ? err.message : String(err)}\nlogs in ${dir}/logs\n`);
} finally {
  await devnet.stop();
  if (failed === undefined) rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed === undefined ? 0 : 1;
