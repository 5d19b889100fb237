// One child program of the devnet: spawned in its own process group with stdout and stderr appended to its log
// file, watched for exit, stopped with SIGTERM (then SIGKILL after a grace period), polled for readiness.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { TernError } from '../common/errors.js';

export interface ProcessSpec {
  /** Short name used in messages and devnet.json, e.g. `l1`, `sequencer-node`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export const describeExit = (e: ExitInfo): string =>
  e.signal !== null ? `killed by ${e.signal}` : `exited with code ${e.code}`;

/** The last `n` lines of a log file ('' when it cannot be read). */
export function tailFile(path: string, n: number): string {
  try {
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-n).join('\n');
  } catch {
    return '';
  }
}

export class ManagedProcess {
  #child: ChildProcess | undefined;
  #exit: ExitInfo | undefined;
  readonly exited: Promise<ExitInfo>;
  #resolveExit!: (e: ExitInfo) => void;

  constructor(readonly spec: ProcessSpec) {
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#exit === undefined;
  }

  start(): void {
    if (this.#child) throw new TernError('DEVNET_PROCESS', `${this.spec.name} was already started`);
    const fd = openSync(this.spec.logFile, 'a');
    try {
      // detached: a terminal's Ctrl-C reaches only the launcher, which stops the children in order.
      this.#child = spawn(this.spec.command, [...this.spec.args], {
        cwd: this.spec.cwd,
        env: this.spec.env ?? process.env,
        stdio: ['ignore', fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    this.#child.on('error', (err) => {
      // A spawn failure (missing program) has no exit event: record it where the user will look.
      appendFileSync(this.spec.logFile, `tern-devnet: cannot run ${this.spec.command}: ${err.message}\n`);
      this.#finish({ code: 127, signal: null });
    });
    this.#child.on('exit', (code, signal) => this.#finish({ code, signal }));
  }

  #finish(e: ExitInfo): void {
    if (this.#exit) return;
    this.#exit = e;
    this.#resolveExit(e);
  }

  /** SIGKILL at once: a crash, for resume tests. */
  async kill(): Promise<ExitInfo | undefined> {
    if (!this.#child) return undefined;
    if (!this.#exit) this.#child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then SIGKILL when it has not exited after `graceMs`. Resolves with how it ended. */
  async stop(graceMs = 10_000): Promise<ExitInfo | undefined> {
    const child = this.#child;
    if (!child) return undefined;
    if (this.#exit) return this.#exit;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (!this.#exit) child.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return this.exited;
  }

  tail(n = 20): string {
    return tailFile(this.spec.logFile, n);
  }
}

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** What is being waited for, for the error message. */
  what: string;
  signal?: AbortSignal;
}

/**
 * Polls `check` until it returns true. Fails with DEVNET_PROCESS_EXITED as soon as the process exits, and with
 * DEVNET_NOT_READY after the timeout; both messages carry the end of the process's log.
 */
export async function waitReady(proc: ManagedProcess, check: () => Promise<boolean>, o: WaitOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const interval = o.intervalMs ?? 250;
  for (;;) {
    if (o.signal?.aborted) throw new TernError('DEVNET_ABORTED', `stopped while waiting for ${o.what}`);
    const exit = proc.exitInfo;
    if (exit) {
      throw new TernError(
        'DEVNET_PROCESS_EXITED',
        `${proc.spec.name} ${describeExit(exit)} before ${o.what}; last lines of ${proc.spec.logFile}:\n${proc.tail()}`,
      );
    }
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) {
      throw new TernError(
        'DEVNET_NOT_READY',
        `${proc.spec.name}: no ${o.what} after ${Math.round(o.timeoutMs / 1000)}s; last lines of ${proc.spec.logFile}:\n${proc.tail()}`,
      );
    }
    await Promise.race([new Promise((r) => setTimeout(r, interval)), proc.exited]);
  }
}
