// A tern-exec --dev child for the fuzzer: every namespace over HTTP on a free port, its resident memory read from
// /proc, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePorts } from '../../src/main/devnet/ports.js';

export interface DevExec {
  readonly rpc: string;
  readonly child: ChildProcess;
  /** Resident set size in bytes (Linux), undefined elsewhere or once exited. */
  rss(): number | undefined;
  logs(): string;
  stop(): Promise<number | null>;
}

/** Starts `bin` (bin/tern-exec.js) with --dev and waits for it to seal. */
export async function startDevExec(bin: string): Promise<DevExec> {
  const [http, auth, beacon] = (await freePorts(3)) as [number, number, number];
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('TERN_')) delete env[k];
  const child = spawn(
    process.execPath,
    [
      bin,
      '--dev',
      '--http',
      '--http.port',
      String(http),
      '--http.api',
      'eth,net,web3,txpool,debug,admin,dev',
      '--authrpc.port',
      String(auth),
      '--dev.beacon.port',
      String(beacon),
      '--ipcdisable',
      '--log.format',
      'logfmt',
      '--verbosity',
      '2',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let ready = false;
  const onData = (d: Buffer) => {
    if (!ready || out.length < 1_000_000) out += String(d);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  for (let i = 0; i < 300; i++) {
    // Ready once the HTTP server answers.
    try {
      const res = await fetch(`http://127.0.0.1:${http}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      });
      if (res.ok) {
        ready = true;
        break;
      }
    } catch {
      // not yet
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`tern-exec --dev did not start:\n${out.slice(-4000)}`);
  }
  return {
    rpc: `http://127.0.0.1:${http}`,
    child,
    rss: () => {
      if (child.exitCode !== null || child.pid === undefined) return undefined;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    logs: () => out,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return new Promise((r) => child.once('exit', (code) => r(code)));
    },
  };
}
