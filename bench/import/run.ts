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
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeBlock } from '../../src/main/primitives/block/block.js';
import { rlpItems } from '../../src/main/primitives/rlpStream.js';
import { ensureChain } from './generate.js';
import {
  type ChainFiles,
  type ChainMeta,
  type ChainParams,
  cacheDir,
  DEFAULT_PARAMS,
  repoRoot,
  WORKLOADS,
} from './params.js';
import { formatOpcodes, formatProfile, summariseOpcodes, summariseProfile } from './profile.js';
import { type ImportFigures, runTernImport, type StageSplit } from './tern.js';

interface Options {
  blocks: number;
  blockGas: number;
  workloads: string[];
  repeat: number;
  detail: boolean;
  profile: boolean;
  shipped: boolean;
  regenerate: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    blocks: DEFAULT_PARAMS.blocks,
    blockGas: DEFAULT_PARAMS.blockGas,
    workloads: ['mix'],
    repeat: 1,
    detail: false,
    profile: false,
    shipped: false,
    regenerate: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] as string).split('=', 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const n = Number(value());
      if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
      return n;
    };
    switch (flag) {
      case '--blocks':
        o.blocks = int();
        break;
      case '--block-gas':
        o.blockGas = int();
        break;
      case '--workloads':
        o.workloads = [];
        for (const w of value().split(',')) {
          if (!(w in WORKLOADS)) throw new Error(`unknown workload ${w}: ${Object.keys(WORKLOADS).join(', ')}`);
          if (!o.workloads.includes(w)) o.workloads.push(w);
        }
        break;
      case '--repeat':
        o.repeat = int();
        break;
      case '--detail':
        o.detail = true;
        break;
      case '--profile':
        o.profile = true;
        break;
      case '--shipped':
        o.shipped = true;
        break;
      case '--regenerate':
        o.regenerate = true;
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return o;
}

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Runs a child mode (child.ts) and returns its result; stderr passes through. */
function runChildMode(mode: string, dir: string, extra: string[] = []): Promise<ImportFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode, dir, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`${mode} run failed (exit ${code})\n${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as ImportFigures);
    });
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

/** CPU time of the loop over all threads, and gas per CPU-second: steadier than wall time on a busy machine. */
function cpuNote(f: ImportFigures): string {
  if (f.cpuSeconds === undefined) return '';
  return `, ${f.cpuSeconds.toFixed(1)} CPU-s (${(f.gas / 1e6 / f.cpuSeconds).toFixed(2)} Mgas per CPU-s)`;
}

function best(runs: ImportFigures[]): ImportFigures {
  return runs.reduce((a, b) => (b.mgasPerSec > a.mgasPerSec ? b : a));
}

function describeChain(meta: ChainMeta, dir: string, cached: boolean): string {
  const pct = (k: 'eth' | 'erc20' | 'compute' | 'storage') =>
    ((100 * (meta.gasByKind[k] ?? 0)) / meta.gasUsed).toFixed(0);
  return [
    `chain: ${relative(repoRoot(), dir)} (${cached ? 'cached' : `generated in ${meta.generatedSeconds.toFixed(0)} s`})`,
    `  ${meta.blocks} blocks, ${meta.txs} txs (ETH ${meta.txsByKind.eth}, ERC-20 ${meta.txsByKind.erc20}, compute ${meta.txsByKind.compute}, storage ${meta.txsByKind.storage ?? 0}),`,
    `  ${(meta.gasUsed / 1e6).toFixed(0)} Mgas (${(meta.gasUsed / meta.blocks / 1e6).toFixed(1)} per block; gas share ETH ${pct('eth')} %, ERC-20 ${pct('erc20')} %, compute ${pct('compute')} %, storage ${pct('storage')} %), ${(meta.chainBytes / 1e6).toFixed(1)} MB`,
  ].join('\n');
}

async function runWorkload(name: string, o: Options): Promise<{ tern: ImportFigures; ejs: ImportFigures }> {
  const mix = WORKLOADS[name] as ChainParams['mix'];
  const params: ChainParams = { ...DEFAULT_PARAMS, blocks: o.blocks, blockGas: o.blockGas, mix };
  if (o.regenerate) rmSync(cacheDir(params), { recursive: true, force: true });
  console.log(`\n## workload ${name}`);
  const { files, meta, cached } = await ensureChain(params, (m) => console.log(`  ${m}`));
  console.log(describeChain(meta, files.dir, cached));

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
  const order = [...results.keys()].sort((a, b) => Number(a === 'mix') - Number(b === 'mix'));
  for (const w of order) {
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
