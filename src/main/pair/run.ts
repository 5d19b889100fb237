// tern-pair: tern-exec and tern-node in one process. Parses both halves of the command line (settings.ts), sets
// up each program's logging as it would on its own (tern-node to stdout, tern-exec to stderr or --log.file),
// starts tern-exec with all its listeners, then tern-node with the in-process engine over that tern-exec.
// Bad input ends as one line on stderr naming the side, exit status 2, with nothing left running.
import { execOptions } from '../cli/execOptions.js';
import { nodeOptions } from '../cli/nodeOptions.js';
import type { ProcessIo } from '../cli/run.js';
import { TernError } from '../common/errors.js';
import { createLogger, type LogRoot } from '../common/logger/index.js';
import { versionLine } from '../common/version.js';
import { EXEC_HOOKS, serveExec } from '../exec/main.js';
import type { ExecNode } from '../exec/node.js';
import { NODE_HOOKS, startTernNode } from '../node/main.js';
import type { Side } from './args.js';
import { inProcessEngineFactory } from './engine.js';
import { pairHelp } from './help.js';
import { createPairLifecycles, followExecStop, type PairLifecycles } from './lifecycles.js';
import { type PairParse, parsePairSettings } from './settings.js';

const NAME = 'tern-pair';

export interface PairRunning extends PairLifecycles {
  readonly execNode: ExecNode;
}

/** One line on stderr (the stack only for faults of ours), as the single programs report; returns the exit status. */
function report(io: ProcessIo, err: unknown, side?: Side, code?: number): number {
  const prefix = side === undefined ? '' : `tern-${side}: `;
  if (err instanceof TernError && err.code === 'USAGE') {
    io.stderr(`${NAME}: ${prefix}${err.message}\nRun '${NAME} --help' for usage.\n`);
    return code ?? 2;
  }
  if (err instanceof TernError && err.code === 'REPORTED') {
    io.stderr(`${NAME}: ${prefix}${err.message}\n`);
    return code ?? 1;
  }
  io.stderr(`${NAME}: ${prefix}${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return code ?? 1;
}

const isUserError = (err: unknown) => err instanceof TernError && (err.code === 'USAGE' || err.code === 'REPORTED');

/** Runs the pair to the point where both programs are up; returns an exit status when it ends before that. */
export async function runPair(io: ProcessIo): Promise<number | PairRunning> {
  let parsed: PairParse;
  try {
    parsed = parsePairSettings(io.argv, io.env);
  } catch (err) {
    return report(io, err);
  }
  if (parsed.kind === 'help') {
    io.stdout(pairHelp(versionLine()));
    return 0;
  }
  if (parsed.kind === 'version') {
    io.stdout(`${NAME} version ${versionLine()}\n`);
    return 0;
  }
  const { node: nodeSettings, exec: execSettings } = parsed;

  let execLog: LogRoot;
  let nodeLog: LogRoot;
  try {
    execLog = createLogger(EXEC_HOOKS.loggerOptions(execSettings));
  } catch (err) {
    return report(io, err, 'exec');
  }
  try {
    nodeLog = createLogger(NODE_HOOKS.loggerOptions(nodeSettings));
  } catch (err) {
    await execLog.close();
    return report(io, err, 'node');
  }
  const pair = createPairLifecycles({
    nodeLogger: nodeLog.logger.child('lifecycle'),
    execLogger: execLog.logger.child('lifecycle'),
    closeNodeLog: () => nodeLog.close(),
    closeExecLog: () => execLog.close(),
  });

  let execNode: ExecNode | undefined;
  try {
    execNode = await serveExec({ options: execOptions(execSettings), log: execLog, lifecycle: pair.exec });
    if (execNode === undefined) throw new Error('tern-exec started without a node (--dev is refused earlier)');
  } catch (err) {
    if (!isUserError(err)) execLog.logger.error('Failed', { err: err instanceof Error ? err.message : String(err) });
    await pair.node.stop('tern-exec failed to start');
    return report(io, err, 'exec', isUserError(err) && (err as TernError).code === 'USAGE' ? 2 : 1);
  }

  try {
    const options = nodeOptions(nodeSettings);
    await startTernNode(
      { options, log: nodeLog, lifecycle: pair.node },
      { engine: inProcessEngineFactory(options.replica, execNode) },
    );
  } catch (err) {
    if (!isUserError(err)) nodeLog.logger.error('Failed', { err: err instanceof Error ? err.message : String(err) });
    await pair.node.stop('tern-node failed to start');
    return report(io, err, 'node', isUserError(err) && (err as TernError).code === 'USAGE' ? 2 : 1);
  }
  return { ...pair, execNode };
}

/** The process entry point (bin/tern-pair.js). */
export async function main(): Promise<void> {
  const io: ProcessIo = {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  };
  const result = await runPair(io);
  if (typeof result === 'number') {
    process.exitCode = result;
    return;
  }
  // Keep the process alive until a signal, even while no listener holds the event loop open.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const exit = (code: number) => {
    clearInterval(keepAlive);
    process.exit(code);
  };
  // SIGINT/SIGTERM stop tern-node, whose last hooks stop tern-exec; a second signal exits at once.
  result.node.handleSignals(() => exit(0));
  followExecStop(result, () => exit(0));
}
