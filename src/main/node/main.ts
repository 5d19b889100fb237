// tern-node: the rollup consensus node (the op-node role). This module wires the program together from its
// options (cli/nodeOptions.ts builds them from the flags once); each subsystem lives in its own folder.

import { NODE_PROGRAM } from '../cli/nodeFlags.js';
import { nodeLoggerOptions, nodeOptions } from '../cli/nodeOptions.js';
import type { ProgramHooks } from '../cli/run.js';
import type { Lifecycle } from '../common/lifecycle.js';
import type { LogRoot } from '../common/logger/index.js';
import { logNativeStatus } from '../common/metrics/base.js';
import { startNodeObservability } from '../common/metrics/nodeObservability.js';
import { obtainHex32File } from '../common/secretFile.js';
import { versionLine } from '../common/version.js';
import { nativeStatus } from '../native/index.js';
import { type EngineFactory, startReplica } from './driver/replica.js';
import type { NodeOptions } from './options.js';

export interface NodeStartOptions {
  /** An engine in this process (tern-pair's in-process engine): no --l2, no JWT secret. */
  engine?: EngineFactory | undefined;
}

/** What tern-node's parts get: the options, the logger root and the lifecycle. */
export interface NodeContext {
  readonly options: NodeOptions;
  readonly log: LogRoot;
  readonly lifecycle: Lifecycle;
}

/** Starts tern-node from its options; with `opts.engine` it drives that engine instead of --l2 over HTTP. */
export async function startTernNode(
  { options, log, lifecycle }: NodeContext,
  opts: NodeStartOptions = {},
): Promise<undefined> {
  const logger = log.logger.child('node');
  logger.info('Starting tern-node', { version: versionLine(), node: process.version });
  logNativeStatus(logger, nativeStatus());
  // Metrics and pprof first, so the rest of startup can record and be profiled; modules get `observability`.
  const observability = await startNodeObservability(options.observability, { logger, lifecycle });

  let jwtSecret: Uint8Array | undefined;
  if (opts.engine === undefined) {
    const jwtPath = options.jwtSecretPath;
    const jwt = obtainHex32File(jwtPath, 'JWT secret');
    if (jwt.created) {
      logger.warn('Generated a new engine JWT secret; configure the execution client with it', {
        path: jwtPath,
        hint: `tern-exec --authrpc.jwtsecret=${jwtPath}`,
      });
    } else {
      logger.info('Loaded engine JWT secret', { path: jwtPath });
    }
    jwtSecret = jwt.secret;
  }

  // The replica: L1 reading, derivation, engine driving, P2P and the RPC server (driver/replica.ts).
  await startReplica({
    options: options.replica,
    logger,
    lifecycle,
    jwtSecret,
    engine: opts.engine,
    metrics: observability.opNode,
    setLogLevel: (level) => log.setLevel(level),
    onFatal: (reason) => {
      logger.error('Stopping the node', { reason });
      void lifecycle.stop(reason).then(() => process.exit(1));
    },
  });

  observability.recordUp();
  logger.info('Started tern-node');
  return undefined;
}

export const NODE_HOOKS: ProgramHooks = {
  program: NODE_PROGRAM,
  loggerOptions: nodeLoggerOptions,
  // The flags become typed options here, once; nothing below reads a flag by name.
  start: ({ settings, log, lifecycle }) => startTernNode({ options: nodeOptions(settings), log, lifecycle }),
};
