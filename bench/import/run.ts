// `npm run bench:import`: the block-import benchmark. Generates (or reuses) the benchmark chain, imports it with
// `tern-exec import` and with the tuned @ethereumjs/vm baseline, prints Mgas/s and the per-stage split of both,
// and ends with one line: `import mix: tern <X> Mgas/s, ethereumjs <Y> Mgas/s, ratio <Z>`.
//
// Options (after `npm run bench:import --`):
//   --blocks N            blocks in the chain (default 200)
//   --block-gas N         gas per block the generator fills to (default 16000000)
//   --workloads a,b       the chains to run: mix (default), transfers-erc20 (no compute), transfers, erc20,
//                         compute, storage (single-kind chains)
//   --repeat N            runs of each side per workload, the best counts (default 1)
//   --detail              also run tern's importer in-process (decode measured per block)
//   --profile             in-process run under the V8 CPU profiler, summarised to the top functions and the
//                         time per opcode class (sampled)
//   --shipped             also run @ethereumjs/vm as shipped (no native crypto, no caches; slow)
//   --regenerate          discard the cached chain first
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { decodeBlock } from '../../src/main/primitives/block/block.js';
import { rlpItems } from '../../src/main/primitives/rlpStream.js';
import type { ChainFiles } from './params.js';
import { formatOpcodes, formatProfile, summariseOpcodes, summariseProfile } from './profile.js';
import {
  best,
  type ChainOptions,
  cpuNote,
  defaultChainOptions,
  load,
  mixLast,
  parseChainArgs,
  prepareChain,
  runChildMode,
} from './session.js';
import { type ImportFigures, runTernImport, type StageSplit } from './tern.js';

interface Options extends ChainOptions {
  detail: boolean;
  profile: boolean;
  shipped: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { ...defaultChainOptions(['mix']), detail: false, profile: false, shipped: false };
  return parseChainArgs(argv, o, (flag, opts) => {
    if (flag === '--detail') opts.detail = true;
    else if (flag === '--profile') opts.profile = true;
    else if (flag === '--shipped') opts.shipped = true;
    else return false;
    return true;
  });
}

function decodeMs(files: ChainFiles): number {
  const data = readFileSync(files.chain);
  for (const raw of rlpItems(data)) decodeBlock(raw); // warm-up
  const t = performance.now();
  for (const raw of rlpItems(data)) decodeBlock(raw);
  return performance.now() - t;
}

const STAGES: Array<keyof StageSplit> = ['decode', 'senders', 'execution', 'stateRoot', 'persistence', 'other'];

function formatSplit(f: ImportFigures, notes: Partial<Record<keyof StageSplit, string>> = {}): string {
  const total = f.seconds * 1000;
  return STAGES.filter((s) => f.split[s] !== undefined)
    .map((s) => {
      const ms = f.split[s] as number;
      return `    ${s.padEnd(12)} ${(ms / 1000).toFixed(2).padStart(8)} s ${((100 * ms) / total).toFixed(1).padStart(5)} %${notes[s] ? `  ${notes[s]}` : ''}`;
    })
    .join('\n');
}

async function runWorkload(name: string, o: Options): Promise<{ tern: ImportFigures; ejs: ImportFigures }> {
  const { files, meta } = await prepareChain(name, o);

  const ternRuns: ImportFigures[] = [];
  const ejsRuns: ImportFigures[] = [];
  for (let r = 0; r < o.repeat; r++) {
    console.log(`\ntern-exec import (child process, LMDB, sender-recovery pool) — load ${load()}`);
    const t = await runTernImport(files, meta);
    ternRuns.push(t);
    const cpu = t.processCpuSeconds === undefined ? '' : `, ${t.processCpuSeconds.toFixed(1)} CPU-s`;
    console.log(
      `  ${t.mgasPerSec.toFixed(2)} Mgas/s: ${t.seconds.toFixed(1)} s import loop; whole process ${(t.wallSeconds ?? 0).toFixed(1)} s wall${cpu} (start-up included)`,
    );
    console.log(`ethereumjs runBlock, tuned (child process) — load ${load()}`);
    const e = await runChildMode('ethereumjs', files.dir);
    ejsRuns.push(e);
    console.log(`  ${e.mgasPerSec.toFixed(2)} Mgas/s: ${e.seconds.toFixed(1)} s${cpuNote(e)}`);
  }
  const tern = best(ternRuns);
  const ejs = best(ejsRuns);
  const dec = decodeMs(files);
  console.log(`\ntern-exec import split (best run; the importer's own timers):`);
  console.log(
    formatSplit(tern, {
      other: `decode (${(dec / 1000).toFixed(2)} s, measured separately), validation, framing, write batches`,
      senders: 'worker pool, blocks ahead: only the time execution waited for it',
      stateRoot: 'waiting for the trie hasher worker (block N hashed while N+1 executes)',
      persistence: 'LMDB commits, pipelined behind execution: only the time execution waited for them',
    }),
  );
  console.log(`ethereumjs split (best run):`);
  console.log(
    formatSplit(ejs, {
      senders: 'native ecrecover inside runBlock (body validation)',
      stateRoot: 'getStateRoot: cache flush into the trie + hashing',
      persistence: 'none: in-memory MapDB',
    }),
  );

  if (o.detail) {
    console.log(`\ntern in-process (same importer, decode timed per block) — load ${load()}`);
    const d = await runChildMode('inprocess', files.dir);
    console.log(`  ${d.mgasPerSec.toFixed(2)} Mgas/s: ${d.seconds.toFixed(1)} s${cpuNote(d)}`);
    console.log(formatSplit(d));
  }
  if (o.profile) {
    const profDir = mkdtempSync(join(tmpdir(), 'tern-bench-import-prof-'));
    const path = join(profDir, 'import-loop.cpuprofile');
    console.log(`\ntern in-process under the CPU profiler (import loop only) — load ${load()}`);
    const d = await runChildMode('inprocess-profile', files.dir, [path]);
    console.log(`  ${d.mgasPerSec.toFixed(2)} Mgas/s (profiling on): ${d.seconds.toFixed(1)} s${cpuNote(d)}`);
    console.log(formatSplit(d));
    console.log(formatProfile(summariseProfile(path)));
    const ops = summariseOpcodes(path);
    console.log(ops === undefined ? 'no opcode handler in the samples' : formatOpcodes(ops));
    console.log(`  profile kept in ${path} (open it in Chrome DevTools or speedscope)`);
  }
  if (o.shipped) {
    console.log(`\nethereumjs runBlock as shipped (@noble crypto, no caches) — load ${load()}`);
    const s = await runChildMode('ethereumjs-shipped', files.dir);
    console.log(`  ${s.mgasPerSec.toFixed(2)} Mgas/s: ${s.seconds.toFixed(1)} s${cpuNote(s)}`);
  }
  return { tern, ejs };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  console.log(
    `tern import benchmark — node ${process.version}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${load()}`,
  );
  const results = new Map<string, { tern: ImportFigures; ejs: ImportFigures }>();
  for (const w of o.workloads) results.set(w, await runWorkload(w, o));
  console.log('');
  // One line per workload, the mix last: `import mix: tern <X> Mgas/s, ethereumjs <Y> Mgas/s, ratio <Z>`.
  for (const w of mixLast(results.keys())) {
    const r = results.get(w) as { tern: ImportFigures; ejs: ImportFigures };
    console.log(
      `import ${w}: tern ${r.tern.mgasPerSec.toFixed(2)} Mgas/s, ethereumjs ${r.ejs.mgasPerSec.toFixed(2)} Mgas/s, ratio ${(r.tern.mgasPerSec / r.ejs.mgasPerSec).toFixed(2)}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
