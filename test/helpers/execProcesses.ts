// tern-exec as a child process for the end-to-end tests that run several (devp2p, EL sync): HTTP on a free port,
// its output collected, and every process started stopped again with SIGTERM.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../../src/main/exec/db/open.js';
import { ROOT } from './paths.js';
import { cleanEnv, freePort } from './processes.js';

const BIN = join(ROOT, 'bin/tern-exec.js');

export interface ExecRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One tern-exec run to its end (2 minutes at most), `input` on its stdin. */
export function execTernExec(args: string[], input?: string): ExecRun {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: cleanEnv(), timeout: 120_000, input });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One tern-exec subcommand run to its end (init, import); it must exit 0. */
export function runTernExec(args: string[]): void {
  const r = execTernExec(args);
  expect(r.code, r.stderr).toBe(0);
}

export interface ExecProcess {
  proc: ChildProcess;
  /** stdout and stderr so far. */
  logs: string;
  /** The HTTP JSON-RPC endpoint (eth, net, admin). */
  rpc: string;
}

export async function stopExecProcess(n: ExecProcess): Promise<void> {
  if (n.proc.exitCode !== null) return;
  n.proc.kill('SIGTERM');
  await new Promise((r) => n.proc.once('exit', r));
}

/** The tern-exec processes one test file starts; `stopAll` (in afterAll) ends those still running. */
export class ExecProcesses {
  private readonly started: ExecProcess[] = [];

  /** Starts tern-exec on `datadir` with `extra` flags and waits (30 s at most) until its output has `readyLine`. */
  async start(datadir: string, extra: string[], readyLine: string): Promise<ExecProcess> {
    const [http, auth] = [await freePort(), await freePort()];
    const proc = spawn(
      process.execPath,
      [
        BIN,
        `--datadir=${datadir}`,
        '--http',
        '--http.addr=127.0.0.1',
        `--http.port=${http}`,
        '--http.api=eth,net,admin',
        `--authrpc.port=${auth}`,
        '--ipcdisable',
        '--log.format=logfmt',
        ...extra,
      ],
      { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const node: ExecProcess = { proc, logs: '', rpc: `http://127.0.0.1:${http}` };
    this.started.push(node);
    const append = (d: Buffer) => {
      node.logs += String(d);
    };
    proc.stdout?.on('data', append);
    proc.stderr?.on('data', append);
    for (let i = 0; i < 300 && !node.logs.includes(readyLine) && proc.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 100));
    if (!node.logs.includes(readyLine)) throw new Error(`tern-exec did not start:\n${node.logs}`);
    return node;
  }

  async stopAll(): Promise<void> {
    for (const n of this.started) await stopExecProcess(n);
  }
}

/** The head block a stopped tern-exec left in `datadir`. */
export async function headOf(datadir: string): Promise<{ number: bigint; hash: string }> {
  const db = await openDatabase({ datadir });
  try {
    const head = new ChainStore(db).head();
    return { number: head.number, hash: `0x${Buffer.from(head.hash).toString('hex')}` };
  } finally {
    await db.close();
  }
}
