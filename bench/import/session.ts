// What the import benchmark and the engine-path benchmark (bench/engine/) share: their command-line options, the
// chain of a workload (generated or cached, described), child-process runs of bench/import/child.ts, and the
// machine's load printed beside each run.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import type { ImportFigures } from './tern.js';

/** The options both benchmarks take. */
export interface ChainOptions {
  blocks: number;
  blockGas: number;
  workloads: string[];
  repeat: number;
  regenerate: boolean;
}

export function defaultChainOptions(workloads: string[]): ChainOptions {
  return { blocks: DEFAULT_PARAMS.blocks, blockGas: DEFAULT_PARAMS.blockGas, workloads, repeat: 1, regenerate: false };
}

/**
 * Parses `--flag value` / `--flag=value` options into `o`: the shared ones here, the others through `extra`
 * (which returns false for a flag it does not know either).
 */
export function parseChainArgs<O extends ChainOptions>(
  argv: readonly string[],
  o: O,
  extra: (flag: string, o: O) => boolean = () => false,
): O {
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
      case '--regenerate':
        o.regenerate = true;
        break;
      default:
        if (!extra(flag, o)) throw new Error(`unknown option ${flag}`);
    }
  }
  return o;
}

export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

/** Runs a child mode (child.ts) and returns its result; stderr passes through. */
export function runChildMode(mode: string, dir: string, extra: string[] = []): Promise<ImportFigures> {
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

/** CPU time of the loop over all threads, and gas per CPU-second: steadier than wall time on a busy machine. */
export function cpuNote(f: ImportFigures): string {
  if (f.cpuSeconds === undefined) return '';
  return `, ${f.cpuSeconds.toFixed(1)} CPU-s (${(f.gas / 1e6 / f.cpuSeconds).toFixed(2)} Mgas per CPU-s)`;
}

export function best<T extends { mgasPerSec: number }>(runs: T[]): T {
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

/** The workload's chain, generated unless cached (or regenerated when asked), described on stdout. */
export async function prepareChain(name: string, o: ChainOptions): Promise<{ files: ChainFiles; meta: ChainMeta }> {
  const mix = WORKLOADS[name] as ChainParams['mix'];
  const params: ChainParams = { ...DEFAULT_PARAMS, blocks: o.blocks, blockGas: o.blockGas, mix };
  if (o.regenerate) rmSync(cacheDir(params), { recursive: true, force: true });
  console.log(`\n## workload ${name}`);
  const { files, meta, cached } = await ensureChain(params, (m) => console.log(`  ${m}`));
  console.log(describeChain(meta, files.dir, cached));
  return { files, meta };
}

/** Workload names in the order of the summary lines: the mix last. */
export function mixLast(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => Number(a === 'mix') - Number(b === 'mix'));
}
