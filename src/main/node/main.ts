// tern-node: the rollup consensus node (the op-node role). This module wires the program together from its
// settings; each subsystem lives in its own folder.

import { NODE_PROGRAM } from '../cli/nodeFlags.js';
import type { ProgramContext, ProgramHooks } from '../cli/run.js';
import { type LogFormat, levelFromName } from '../common/logger/index.js';
import { logNativeStatus } from '../common/metrics/base.js';
import { startNodeObservability } from '../common/metrics/nodeObservability.js';
import { obtainHex32File } from '../common/secretFile.js';
import { versionLine } from '../common/version.js';
import { nativeStatus } from '../native/index.js';
import { type EngineFactory, startReplica } from './driver/replica.js';

/** Where the engine JWT secret goes when --l2.jwt-secret is left empty (op-node's habit: the working directory). */
export const DEFAULT_JWT_SECRET_PATH = 'jwt.txt';

export interface NodeStartOptions {
  /** An engine in this process (tern-pair's in-process engine): no --l2, no JWT secret. */
  engine?: EngineFactory | undefined;
}

/** Starts tern-node from its settings; with `opts.engine` it drives that engine instead of --l2 over HTTP. */
export async function startTernNode(
  { settings, log, lifecycle }: ProgramContext,
  opts: NodeStartOptions = {},
): Promise<undefined> {
  const logger = log.logger.child('node');
  logger.info('Starting tern-node', { version: versionLine(), node: process.version });
  logNativeStatus(logger, nativeStatus());
  // Metrics and pprof first, so the rest of startup can record and be profiled; modules get `observability`.
  const observability = await startNodeObservability(settings, { logger, lifecycle });

  let jwtSecret: Uint8Array | undefined;
  if (opts.engine === undefined) {
    const jwtFlag = settings.get<string | undefined>('l2.jwt-secret')?.trim();
    const jwtPath = jwtFlag === undefined || jwtFlag === '' ? DEFAULT_JWT_SECRET_PATH : jwtFlag;
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
    settings,
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
  loggerOptions: (settings) => ({
    level: levelFromName(settings.get<string>('log.level')),
    format: settings.get<LogFormat>('log.format'),
    color: settings.get<boolean>('log.color'),
    pid: settings.get<boolean>('log.pid'),
    // op-node writes its log to stdout (geth, and so tern-exec, to stderr).
    output: 'stdout',
  }),
  start: (ctx) => startTernNode(ctx),
};
