// tern-devnet as a child process for the e2e tests: started with its output collected, waited for until it prints
// its summary (devnet.json read then), and killed with what it started if a test left it running.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevnetInfo } from '../../src/main/devnet/launcher.js';
import { ROOT } from '../helpers/paths.js';

const BIN = join(ROOT, 'bin/tern-devnet.js');

/** Whether the process `pid` is alive. */
export const alive = (pid: number | undefined) => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Calls `f` every 500 ms until it gives a value; past `timeoutMs` fails with `output()` (the devnet's output). */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  output: () => string,
  f: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; devnet output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `bin/tern-devnet.js --workdir=<workdir> <args>` running as a child process, in a new temporary workdir. */
export class DevnetChild {
  readonly workdir: string;
  /** Its stdout and stderr so far. */
  out = '';
  /** devnet.json, once ready() has read it. */
  info: DevnetInfo | undefined;
  readonly child: ChildProcess;
  /** Its exit status, once it exits. */
  readonly exitCode: Promise<number | null>;

  /** Starts it in a new workdir under the temporary directory, named from `prefix`. */
  constructor(prefix: string, args: readonly string[]) {
    const workdir = mkdtempSync(join(tmpdir(), prefix));
    this.workdir = workdir;
    this.child = spawn(process.execPath, [BIN, `--workdir=${workdir}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exitCode = new Promise((r) => this.child.on('exit', (code) => r(code)));
    this.child.stdout?.on('data', (d) => {
      this.out += d;
    });
    this.child.stderr?.on('data', (d) => {
      this.out += d;
    });
  }

  /** pollUntil, failing with this devnet's output. */
  until<T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> {
    return pollUntil(what, timeoutMs, () => this.out, f);
  }

  /** Waits (at most `timeoutMs`) for the summary, failing if the devnet exits first, and reads devnet.json. */
  async ready(timeoutMs: number): Promise<DevnetInfo> {
    const early = this.exitCode.then((code) => {
      throw new Error(`tern-devnet exited early (status ${code}):\n${this.out}`);
    });
    await Promise.race([
      early,
      this.until('the devnet summary', timeoutMs, async () =>
        this.out.includes('Ctrl-C stops everything') ? true : undefined,
      ),
    ]);
    early.catch(() => undefined);
    this.info = JSON.parse(readFileSync(join(this.workdir, 'devnet.json'), 'utf8')) as DevnetInfo;
    return this.info;
  }

  /** If it still runs: SIGKILL for it and for layer 1 and every engine and rollup node it started. */
  killLeftovers(): void {
    if (this.child.exitCode !== null) return;
    this.child.kill('SIGKILL');
    const info = this.info;
    for (const p of [info?.l1.pid, ...(info?.nodes ?? []).flatMap((n) => [n.pids.exec, n.pids.node])]) {
      if (alive(p)) process.kill(p as number, 'SIGKILL');
    }
  }

  /** killLeftovers, then removes the workdir. */
  cleanup(): void {
    this.killLeftovers();
    rmSync(this.workdir, { recursive: true, force: true });
  }
}
