// The two nodes the engine benchmark feeds: tern-exec as users run it (a child process serving the Engine API over
// HTTP+JWT and the user RPC over HTTP, on free ports read back from its log), and the same node started in this
// process from the same command line (runNode), whose EngineApi is called directly.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXEC_PROGRAM } from '../../src/main/cli/execFlags.js';
import { execOptions } from '../../src/main/cli/execOptions.js';
import { parseSettings } from '../../src/main/cli/parse.js';
import { Lifecycle } from '../../src/main/common/lifecycle.js';
import { createLogger } from '../../src/main/common/logger/index.js';
import { RpcClient } from '../../src/main/common/rpc/client.js';
import { runNode } from '../../src/main/exec/node.js';
import { type ChainFiles, type ChainMeta, repoRoot } from '../import/params.js';
import { initDatadir } from '../import/tern.js';
import { type EngineSink, httpEngineSink, inProcessEngineSink } from './feeder.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const SECRET = new Uint8Array(32).fill(0x42);
const START_TIMEOUT_MS = 120_000;

/** The command line of the benchmark's node: a local replica, nothing listening beyond 127.0.0.1. */
function nodeArgs(datadir: string, jwtPath: string): string[] {
  return [
    '--datadir',
    datadir,
    '--nodiscover',
    '--maxpeers=0',
    '--ipcdisable',
    '--authrpc.addr=127.0.0.1',
    '--authrpc.port=0',
    `--authrpc.jwtsecret=${jwtPath}`,
  ];
}

function writeJwt(datadir: string): string {
  const path = join(datadir, 'bench-jwt.hex');
  writeFileSync(path, Buffer.from(SECRET).toString('hex'));
  return path;
}

export interface RunningNode {
  /** The Engine API: over HTTP+JWT for the spawned node, the EngineApi object for the in-process one. */
  readonly engine: EngineSink;
  /** The user RPC (HTTP), when the node serves one. */
  readonly user?: RpcClient;
  stop(): Promise<void>;
}

/** Spawns `tern-exec` on an initialised datadir and waits until both listeners are up. */
export async function spawnTernExec(datadir: string): Promise<RunningNode> {
  const args = [
    join(repoRoot(), 'bin', 'tern-exec.js'),
    ...nodeArgs(datadir, writeJwt(datadir)),
    '--http',
    '--http.addr=127.0.0.1',
    '--http.port=0',
    '--http.api=eth,net,web3',
    '--log.format=json',
    // The concurrency figure's 8 parallel calls may take longer than the default 5 s on a busy machine.
    '--rpc.evmtimeout=60s',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const { authUrl, userUrl } = await listenersOf(child);
  const auth = new RpcClient({ url: authUrl, jwtSecret: SECRET, timeoutMs: 600_000 }, { logger });
  const user = new RpcClient({ url: userUrl, timeoutMs: 600_000 }, { logger });
  return {
    engine: httpEngineSink(auth),
    user,
    stop: async () => {
      await auth.close();
      await user.close();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Reads the Engine API's and the user RPC's URLs from the node's JSON log; rejects if it exits first. */
function listenersOf(child: ChildProcess): Promise<{ authUrl: string; userUrl: string }> {
  return new Promise((resolve, reject) => {
    let authUrl: string | undefined;
    let userUrl: string | undefined;
    let buffered = '';
    let tail = '';
    const timer = setTimeout(() => reject(new Error(`tern-exec did not start in time:\n${tail}`)), START_TIMEOUT_MS);
    const onData = (d: Buffer) => {
      buffered += d.toString();
      tail = (tail + d.toString()).slice(-4000);
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
        if (!line.startsWith('{')) continue;
        const j = JSON.parse(line) as { msg?: string; address?: { url?: string }; endpoint?: string; auth?: boolean };
        if (j.msg === 'Engine API listening') authUrl = j.address?.url;
        if (j.msg === 'HTTP server started' && j.auth === false) userUrl = `http://${j.endpoint}`;
      }
      if (authUrl !== undefined && userUrl !== undefined) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        resolve({ authUrl, userUrl });
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tern-exec exited (${code}) before listening:\n${tail}`));
    });
  });
}

/** The node `tern-exec` would run, started in this process on an initialised datadir. */
export async function startInProcess(datadir: string): Promise<RunningNode> {
  const settings = parseSettings(EXEC_PROGRAM, { argv: nodeArgs(datadir, writeJwt(datadir)), env: {} });
  const log = createLogger({ level: 'silent', format: 'json' });
  const lifecycle = new Lifecycle(log.logger);
  const node = await runNode({ options: execOptions(settings), log, lifecycle });
  return { engine: inProcessEngineSink(node.engine), stop: () => lifecycle.stop('benchmark done') };
}

/** Runs `body` on a node started on a fresh, initialised datadir; removes the datadir afterwards. */
export async function withNode<T>(
  files: ChainFiles,
  meta: ChainMeta,
  start: (datadir: string) => Promise<RunningNode>,
  body: (node: RunningNode) => Promise<T>,
): Promise<T> {
  const datadir = mkdtempSync(join(tmpdir(), 'tern-bench-engine-'));
  try {
    await initDatadir(files, meta, datadir);
    const node = await start(datadir);
    try {
      return await body(node);
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}
