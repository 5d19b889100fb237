// tern's side of the import benchmark, through the real product path: a fresh datadir, `tern-exec init
// <genesis.json>`, then `tern-exec import <chain.rlp>` as a child process (LMDB persistence, the sender-recovery
// worker pool). The figures come from the importer's own `Import done` line (JSON logs on stderr); the wall time
// of the child includes process start, database open and pool start-up besides the import itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainFiles, ChainMeta } from './params.js';
import { repoRoot } from './params.js';

export interface StageSplit {
  /** Milliseconds per stage; stages a run does not measure are absent. */
  decode?: number;
  senders?: number;
  execution?: number;
  stateRoot?: number;
  persistence?: number;
  /** Total minus the measured stages: validation, framing, scheduling. */
  other?: number;
}

export interface ImportFigures {
  readonly blocks: number;
  readonly txs: number;
  readonly gas: number;
  /** Seconds of the import loop (first block to last). */
  readonly seconds: number;
  readonly mgasPerSec: number;
  readonly split: StageSplit;
  /** Wall seconds of the whole child process (start-up included), when run as one. */
  readonly wallSeconds?: number;
  /**
   * CPU seconds of the import loop over all threads of the process (user + system), where measured: a figure
   * that contention from other processes on a shared machine inflates far less than the wall time.
   */
  readonly cpuSeconds?: number;
  /** CPU seconds of the whole child process (start-up included), when run as one on Linux. */
  readonly processCpuSeconds?: number;
}

/**
 * CPU seconds used by this process's waited-for children (cutime + cstime of /proc/self/stat, all their threads
 * included); undefined where /proc is missing. Linux's USER_HZ is 100 on every architecture Node supports.
 */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined;
  }
}

interface LogLine {
  msg?: string;
  [k: string]: unknown;
}

/** Runs `tern-exec <args>` to its end and collects its JSON log lines. */
export function runTernExec(
  args: string[],
): Promise<{ code: number | null; lines: LogLine[]; stderr: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(repoRoot(), 'bin', 'tern-exec.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const lines: LogLine[] = [];
      for (const l of `${stdout}\n${stderr}`.split('\n')) {
        if (!l.startsWith('{')) continue;
        try {
          lines.push(JSON.parse(l) as LogLine);
        } catch {
          // not a log line
        }
      }
      resolve({ code, lines, stderr, wallMs: performance.now() - started });
    });
  });
}

const num = (v: unknown) => Number(String(v).replace(/s$/, ''));

/** `tern-exec init <genesis.json>` in `datadir`, checked against the generator's genesis hash. */
export async function initDatadir(files: ChainFiles, meta: ChainMeta, datadir: string): Promise<void> {
  const init = await runTernExec(['--datadir', datadir, '--log.format', 'json', 'init', files.genesis]);
  const wrote = init.lines.find((l) => l.msg === 'Successfully wrote genesis state');
  if (init.code !== 0 || wrote === undefined) {
    throw new Error(`tern-exec init failed (exit ${init.code}):\n${init.stderr.slice(-2000)}`);
  }
  if (wrote.hash !== meta.genesisHash) {
    throw new Error(`tern-exec init wrote genesis ${String(wrote.hash)}, the generator's is ${meta.genesisHash}`);
  }
}

/** Runs `tern-exec init` and `tern-exec import` on a fresh temporary datadir; removes the datadir afterwards. */
export async function runTernImport(files: ChainFiles, meta: ChainMeta): Promise<ImportFigures> {
  const datadir = mkdtempSync(join(tmpdir(), 'tern-bench-import-'));
  try {
    const common = ['--datadir', datadir, '--log.format', 'json'];
    await initDatadir(files, meta, datadir);
    const cpuBefore = childrenCpuSeconds();
    const imp = await runTernExec([...common, 'import', files.chain]);
    const cpuAfter = childrenCpuSeconds();
    const done = imp.lines.find((l) => l.msg === 'Import done');
    if (imp.code !== 0 || done === undefined) {
      throw new Error(`tern-exec import failed (exit ${imp.code}):\n${imp.stderr.slice(-3000)}`);
    }
    const blocks = num(done.blocks);
    if (blocks !== meta.blocks || String(done.head) !== String(meta.blocks)) {
      throw new Error(`tern-exec import stopped at head ${String(done.head)} of ${meta.blocks}`);
    }
    // mgas/s is printed with two decimals from the exact loop time; elapsed only to 0.1 s.
    const mgasPerSec = num(done['mgas/s']);
    const seconds = meta.gasUsed / 1e6 / mgasPerSec;
    const split: StageSplit = {
      senders: num(done.sendersMs),
      execution: num(done.executionMs),
      stateRoot: num(done.stateRootMs),
      persistence: num(done.persistenceMs),
    };
    const measured = (split.senders ?? 0) + (split.execution ?? 0) + (split.stateRoot ?? 0) + (split.persistence ?? 0);
    split.other = seconds * 1000 - measured;
    return {
      blocks,
      txs: num(done.txs),
      gas: meta.gasUsed,
      seconds,
      mgasPerSec,
      split,
      wallSeconds: imp.wallMs / 1000,
      ...(cpuBefore !== undefined && cpuAfter !== undefined ? { processCpuSeconds: cpuAfter - cpuBefore } : {}),
    };
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}
