// The engine-path benchmark: the import benchmark's chains fed block by block through engine_newPayloadV3 +
// engine_forkchoiceUpdatedV3, over HTTP+JWT to a spawned tern-exec and to the EngineApi of the same node started in
// this process, beside `tern-exec import` and the tuned @ethereumjs/vm baseline of the same chain in the same run.
// While the HTTP import runs, a probe measures eth_getBalance and eth_call latency on the node's user RPC; after
// it, on the idle node, 8 eth_calls of a compute-heavy view function sent at once against one at a time.
import { readFileSync } from 'node:fs';
import { parseGenesis } from '../../src/main/exec/chain/genesis.js';
import { HEAVY, parallelCallRows } from '../calls.js';
import type { ChainFiles, ChainMeta } from '../import/params.js';
import {
  best,
  type ChainOptions,
  cpuNote,
  defaultChainOptions,
  load,
  mixLast,
  prepareChain,
  runChildMode,
} from '../import/session.js';
import { type ImportFigures, runTernImport } from '../import/tern.js';
import { latencyNote } from '../latency.js';
import type { BenchRow, BenchSuite } from '../suite.js';
import { type FeedFigures, feedPayloads, type PayloadCall, payloadsOf } from './feeder.js';
import { spawnTernExec, startInProcess, withNode } from './nodes.js';
import { type ProbeFigures, slowestNote, startProbe } from './probe.js';

export interface WorkloadResult {
  readonly workload: string;
  readonly http: FeedFigures;
  readonly inProcess: FeedFigures;
  readonly import: ImportFigures;
  readonly ethereumjs: ImportFigures;
  readonly probe: ProbeFigures;
  /** The concurrency rows: one at a time, then all at once. */
  readonly parallel: BenchRow[];
}

function checkHead(fed: FeedFigures, meta: ChainMeta): void {
  if (fed.blocks === meta.blocks && fed.head !== meta.headHash)
    throw new Error(`the engine path ended on ${fed.head}, the chain's head is ${meta.headHash}`);
}

const feedLine = (f: FeedFigures) =>
  `  ${f.mgasPerSec.toFixed(2)} Mgas/s: ${f.blocks} blocks, ${f.txs} txs in ${f.seconds.toFixed(1)} s`;

/** The HTTP run with the read probe, then the concurrency figure on the idle node. */
async function runHttp(
  files: ChainFiles,
  meta: ChainMeta,
  calls: readonly PayloadCall[],
): Promise<{ fed: FeedFigures; probe: ProbeFigures; parallel: BenchRow[] }> {
  return withNode(files, meta, spawnTernExec, async (node) => {
    const user = node.user;
    if (user === undefined) throw new Error('the spawned node serves no user RPC');
    let phase = '';
    const probe = startProbe(user, () => phase);
    const fed = await feedPayloads(calls, node.engine, (p) => (phase = p)).finally(() => probe.stop());
    const figures = await probe.stop();
    checkHead(fed, meta);
    const latest = await user.call<{ hash: string }>('eth_getBlockByNumber', ['latest', false]);
    if (latest.hash !== fed.head) throw new Error(`the node's latest block is ${latest.hash}, not ${fed.head}`);
    // calls.ts's view function, run as the code of a contract creation: the chain does not hold it, and tern-exec
    // takes no state overrides yet. The same loop over keccak, its result returned.
    const parallel = await parallelCallRows(() => user.call<string>('eth_call', [{ input: HEAVY }, 'latest']));
    return { fed, probe: figures, parallel };
  });
}

/** Runs the HTTP leg only (its figures printed, no result), or every path (the result). */
async function runWorkload(name: string, o: ChainOptions, httpOnly: true): Promise<undefined>;
async function runWorkload(name: string, o: ChainOptions, httpOnly: false): Promise<WorkloadResult>;
async function runWorkload(name: string, o: ChainOptions, httpOnly: boolean): Promise<WorkloadResult | undefined> {
  const { files, meta } = await prepareChain(name, o);
  const config = parseGenesis(JSON.parse(readFileSync(files.genesis, 'utf8'))).config;
  const calls = payloadsOf(readFileSync(files.chain), config);
  const runs = { http: [] as FeedFigures[], inProcess: [] as FeedFigures[], import: [] as ImportFigures[] };
  const ejs: ImportFigures[] = [];
  let probe: ProbeFigures | undefined;
  let parallel: BenchRow[] = [];
  for (let r = 0; r < o.repeat; r++) {
    console.log(`\nengine API over HTTP+JWT (tern-exec child process), read probe on the user RPC — load ${load()}`);
    const h = await runHttp(files, meta, calls);
    runs.http.push(h.fed);
    console.log(feedLine(h.fed));
    console.log(`  eth_getBalance during the import: ${latencyNote(h.probe.getBalance)}`);
    console.log(`  eth_call during the import:       ${latencyNote(h.probe.call)}`);
    console.log(`  slowest: ${slowestNote(h.probe.slowest)}`);
    if (h.probe.failures > 0) console.log(`  ${h.probe.failures} probe requests failed`);
    for (const row of h.parallel) console.log(`  ${row.task}: ${row.note ?? ''}`);
    if (probe === undefined || h.fed.mgasPerSec >= best(runs.http).mgasPerSec) {
      probe = h.probe;
      parallel = h.parallel;
    }
    if (httpOnly) continue;

    console.log(`engine API in process (EngineApi of the node runNode starts here) — load ${load()}`);
    const i = await withNode(files, meta, startInProcess, (node) => feedPayloads(calls, node.engine));
    checkHead(i, meta);
    runs.inProcess.push(i);
    console.log(feedLine(i));

    console.log(`tern-exec import (child process) — load ${load()}`);
    const t = await runTernImport(files, meta);
    runs.import.push(t);
    console.log(`  ${t.mgasPerSec.toFixed(2)} Mgas/s: ${t.seconds.toFixed(1)} s import loop`);

    console.log(`ethereumjs runBlock, tuned (child process) — load ${load()}`);
    const e = await runChildMode('ethereumjs', files.dir);
    ejs.push(e);
    console.log(`  ${e.mgasPerSec.toFixed(2)} Mgas/s: ${e.seconds.toFixed(1)} s${cpuNote(e)}`);
  }
  if (httpOnly) return undefined;
  return {
    workload: name,
    http: best(runs.http),
    inProcess: best(runs.inProcess),
    import: best(runs.import),
    ethereumjs: best(ejs),
    probe: probe as ProbeFigures,
    parallel,
  };
}

/** Runs every workload of `o`, printing as it goes; returns the results, the mix last. */
export async function runEngineBenchmark(o: ChainOptions): Promise<WorkloadResult[]> {
  const results = new Map<string, WorkloadResult>();
  for (const w of o.workloads) results.set(w, await runWorkload(w, o, false));
  return mixLast(results.keys()).map((w) => results.get(w) as WorkloadResult);
}

/** Only the HTTP leg with its read probe, for each workload of `o` (a quick look at the read latencies). */
export async function runHttpLegs(o: ChainOptions): Promise<void> {
  for (const w of o.workloads) await runWorkload(w, o, true);
}

/** The summary line of one workload (the benchmark's last lines, one per workload). */
export function summaryLine(r: WorkloadResult): string {
  return (
    `engine ${r.workload}: http ${r.http.mgasPerSec.toFixed(2)} Mgas/s, in-process ${r.inProcess.mgasPerSec.toFixed(2)} Mgas/s, ` +
    `import ${r.import.mgasPerSec.toFixed(2)} Mgas/s, getBalance p99 ${r.probe.getBalance.p99Ms.toFixed(1)} ms, ` +
    `call p99 ${r.probe.call.p99Ms.toFixed(1)} ms`
  );
}

/** The results as rows of `npm run bench`'s table. */
export function benchRows(results: readonly WorkloadResult[]): BenchRow[] {
  const mgas = (task: string, f: { mgasPerSec: number; blocks: number; seconds: number }, note: string): BenchRow => ({
    task,
    opsPerSec: f.blocks / f.seconds,
    meanMicros: (f.seconds / f.blocks) * 1e6,
    note: `${f.mgasPerSec.toFixed(2)} Mgas/s${note}`,
  });
  const rows: BenchRow[] = [];
  for (const r of results) {
    const ratio = (f: { mgasPerSec: number }) => `, ${(f.mgasPerSec / r.import.mgasPerSec).toFixed(2)}× import`;
    rows.push(mgas(`${r.workload}: blocks via engine API over HTTP`, r.http, ratio(r.http)));
    rows.push(mgas(`${r.workload}: blocks via engine API in process`, r.inProcess, ratio(r.inProcess)));
    rows.push(mgas(`${r.workload}: blocks via tern-exec import`, r.import, ''));
    rows.push(mgas(`${r.workload}: blocks via ethereumjs runBlock`, r.ethereumjs, ''));
    for (const [what, s] of [
      ['eth_getBalance', r.probe.getBalance],
      ['eth_call', r.probe.call],
    ] as const)
      rows.push({
        task: `${r.workload}: ${what} during HTTP import`,
        opsPerSec: 1000 / s.meanMs,
        meanMicros: s.meanMs * 1000,
        note: latencyNote(s),
      });
    rows.push(...r.parallel.map((row) => ({ ...row, task: `${r.workload}: ${row.task}` })));
  }
  return rows;
}

/** The benchmark in `npm run bench`: both default workloads at full length, the summary lines printed too. */
export const engineSuite: BenchSuite = {
  name: 'engine',
  run: async () => {
    const results = await runEngineBenchmark(defaultChainOptions(['mix', 'transfers-erc20']));
    for (const r of results) console.log(summaryLine(r));
    return benchRows(results);
  },
};
