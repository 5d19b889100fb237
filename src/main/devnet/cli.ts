// tern-devnet's command line: options, --help, and the signal handling around runDevnet. Output goes to stdout.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../common/paths.js';
import { anvilBinary } from './anvil.js';
import { detectCapabilities } from './capabilities.js';
import type { RunOptions } from './run.js';
import { runDevnet } from './run.js';

export const HELP = `tern-devnet: a local OP-Stack network in one command

Starts layer 1 (tern-exec --dev with its beacon API, or anvil), a sequencer pair (tern-exec + tern-node --sequencer.enabled),
tern-batcher and replica pairs (tern-exec + tern-node deriving from layer 1), on free loopback ports; with
--engine in-process each pair is one tern-pair process. The work directory holds rollup.json, both genesis files,
the JWT secrets, one log per process (logs/) and devnet.json with every endpoint, pid and funded test key.
Ctrl-C stops everything.

Options:
  --workdir DIR          work directory (default: a new directory under ${tmpdir()})
  --clean                empty an existing work directory first
  --reuse                continue the chains in an existing work directory
  --replicas N           number of replica pairs (default 1)
  --block-time S         L2 block time in seconds (default 2)
  --l1-block-time S      L1 block period in seconds (default 2)
  --da blobs|calldata|altda  how the batcher posts (default blobs; altda: a DA server, commitments as calldata)
  --seq-window N         sequencing window in L1 blocks (default 200)
  --jovian               activate Jovian at genesis (default: forks through Isthmus)
  --isthmus-at N         start from a Holocene genesis and activate Isthmus at L2 block N (N block times after
                         genesis): the sequencer builds the upgrade block, replicas derive it from layer 1
  --jovian-at N          with --isthmus-at: activate Jovian at L2 block N (N ≥ the Isthmus block)
  --l2-chain-id ID       L2 chain id (default 901)
  --l1 tern-exec|anvil   layer-1 program (default tern-exec). anvil (Foundry) starts from the same L1 genesis
                         with --block-time = --l1-block-time behind a small beacon proxy; the rollup nodes then
                         run with --l1.trustrpc (anvil's blob-block transactions roots are wrong), anvil's
                         finalized block is the head minus 64, and --reuse is refused (anvil's chain is in memory)
  --engine http|in-process   how rollup nodes reach their engine (default http): http runs tern-exec and tern-node
                         as two processes, tern-node calling the Engine API over HTTP with the JWT secret;
                         in-process runs each pair as one tern-pair process (logs/<name>-pair.log, the same pid
                         for exec and node in devnet.json), tern-node calling tern-exec's handlers directly.
                         tern-exec still serves the engine endpoint (with the JWT secret) in both modes
  --status-interval S    seconds between status lines (default 5)
  --ready-timeout S      seconds to wait for each process to answer (default 90)
  -h, --help             this text
`;

class CliError extends Error {}

function positiveInt(v: string | undefined, name: string, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min)
    throw new CliError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
}

export function parseDevnetArgs(argv: string[]): RunOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      workdir: { type: 'string' },
      clean: { type: 'boolean' },
      reuse: { type: 'boolean' },
      replicas: { type: 'string' },
      'block-time': { type: 'string' },
      'l1-block-time': { type: 'string' },
      da: { type: 'string' },
      jovian: { type: 'boolean' },
      'isthmus-at': { type: 'string' },
      'jovian-at': { type: 'string' },
      'seq-window': { type: 'string' },
      'l2-chain-id': { type: 'string' },
      l1: { type: 'string' },
      engine: { type: 'string' },
      'status-interval': { type: 'string' },
      'ready-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values.clean && values.reuse) throw new CliError('--clean and --reuse exclude each other');
  const da = values.da ?? 'blobs';
  if (da !== 'blobs' && da !== 'calldata' && da !== 'altda')
    throw new CliError(`--da must be blobs, calldata or altda, got ${JSON.stringify(da)}`);
  const l1 = values.l1 ?? 'tern-exec';
  if (l1 !== 'tern-exec' && l1 !== 'anvil') {
    throw new CliError(`--l1 must be tern-exec or anvil, got ${JSON.stringify(l1)}`);
  }
  const anvil = l1 === 'anvil' ? anvilBinary() : undefined;
  if (l1 === 'anvil') {
    if (anvil === undefined) {
      throw new CliError('--l1 anvil: anvil is not installed (node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil)');
    }
    if (values.reuse) throw new CliError('--reuse cannot be used with --l1 anvil: anvil keeps its chain in memory');
  }
  const isthmusAt = values['isthmus-at'] === undefined ? undefined : positiveInt(values['isthmus-at'], 'isthmus-at', 1);
  const jovianAt = values['jovian-at'] === undefined ? undefined : positiveInt(values['jovian-at'], 'jovian-at', 1);
  if (values.jovian && (isthmusAt !== undefined || jovianAt !== undefined)) {
    throw new CliError('--jovian (at genesis) excludes --isthmus-at and --jovian-at');
  }
  if (jovianAt !== undefined && isthmusAt === undefined) throw new CliError('--jovian-at needs --isthmus-at');
  if (jovianAt !== undefined && isthmusAt !== undefined && jovianAt < isthmusAt) {
    throw new CliError(`--jovian-at (${jovianAt}) must not be before --isthmus-at (${isthmusAt})`);
  }
  const engine = values.engine ?? 'http';
  if (engine !== 'http' && engine !== 'in-process') {
    throw new CliError(`--engine must be http or in-process, got ${JSON.stringify(engine)}`);
  }
  const root = projectRoot();
  const bin = (name: string) => [process.execPath, join(root, 'bin', `${name}.js`)];
  const numbers = {
    replicas: positiveInt(values.replicas, 'replicas', 1, 0),
    blockTime: positiveInt(values['block-time'], 'block-time', 2),
    l1BlockTime: positiveInt(values['l1-block-time'], 'l1-block-time', 2),
    seqWindow: positiveInt(values['seq-window'], 'seq-window', 200, 2),
    l2ChainId: BigInt(positiveInt(values['l2-chain-id'], 'l2-chain-id', 901)),
    readyTimeoutMs: positiveInt(values['ready-timeout'], 'ready-timeout', 90) * 1000,
    statusIntervalMs: positiveInt(values['status-interval'], 'status-interval', 5) * 1000,
  };
  return {
    ...numbers,
    // Made last, once every option is valid, so bad usage leaves no directory behind.
    workdir: values.workdir ? resolve(values.workdir) : mkdtempSync(join(tmpdir(), 'tern-devnet-')),
    existing: values.clean ? 'clean' : values.reuse ? 'reuse' : 'fail',
    dataAvailability: da,
    jovian: values.jovian ?? false,
    isthmusAt,
    jovianAt,
    host: '127.0.0.1',
    l1Program: l1,
    engine,
    programs: {
      exec: bin('tern-exec'),
      node: bin('tern-node'),
      batcher: bin('tern-batcher'),
      pair: bin('tern-pair'),
      daServer: bin('tern-da-server'),
      ...(anvil === undefined ? {} : { anvil: [anvil] }),
    },
    capabilities: detectCapabilities(),
  };
}

/** The program: returns the exit status (2 for bad usage, 1 when the devnet failed or a child died). */
export async function main(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
): Promise<number> {
  let opts: RunOptions | 'help';
  try {
    opts = parseDevnetArgs(argv);
  } catch (err) {
    out(`tern-devnet: ${(err as Error).message} (see --help)`);
    return 2;
  }
  if (opts === 'help') {
    out(HELP);
    return 0;
  }
  const ac = new AbortController();
  const onSignal = () => {
    if (ac.signal.aborted) return;
    out('');
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runDevnet(opts, { print: out }, ac.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
