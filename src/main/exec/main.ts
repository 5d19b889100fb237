// tern-exec: the execution client (the op-geth role). This module wires the program together from its
// settings; each subsystem lives in its own folder.
import { EXEC_PROGRAM } from '../cli/execFlags.js';
import type { Settings } from '../cli/parse.js';
import type { ProgramContext, ProgramHooks } from '../cli/run.js';
import { dumpTomlConfig, loadTomlConfig } from '../cli/toml.js';
import { type LogFormat, type LoggerOptions, levelFromVerbosity, parseVmodule } from '../common/logger/index.js';
import { logNativeStatus } from '../common/metrics/base.js';
import { versionLine } from '../common/version.js';
import { nativeStatus } from '../native/index.js';
import { runAttach, runConsole } from './cmd/console.js';
import { runExecuteWitness } from './cmd/executeWitness.js';
import { runExport } from './cmd/export.js';
import { runImport } from './cmd/import.js';
import { runInit } from './cmd/init.js';
import { runSnapshot } from './cmd/pruneState.js';
import { selectKzgLibrary } from './cryptoKzg.js';
import { runDev } from './dev/start.js';
import {
  checkExecObservabilitySettings,
  startExecObservability,
  withImportProfiling,
} from './metrics/observability.js';
import { type ExecNode, runNode } from './node.js';

/** Behaviour that is on by default but not built yet: said once at startup, never silently skipped. */
const NOT_BUILT_DEFAULT_ON = ['authenticated Engine API (--authrpc.*)', 'transaction pool', 'P2P'];

function loggerOptions(settings: Settings): LoggerOptions {
  const vmodule = settings.get<string[] | undefined>('log.vmodule');
  const file = settings.get<string | undefined>('log.file');
  return {
    level: levelFromVerbosity(settings.get<number>('verbosity')),
    // geth's default: the terminal format, coloured when stderr is a terminal.
    format: settings.get<LogFormat | undefined>('log.format') ?? 'terminal',
    color: settings.get<string | undefined>('log.format') === undefined && process.stderr.isTTY === true,
    ...(vmodule && vmodule.length > 0 ? { vmodule: parseVmodule(vmodule.join(',')) } : {}),
    ...(file
      ? {
          file: {
            path: file,
            rotate: settings.get<boolean>('log.rotate'),
            maxSizeMB: settings.get<number>('log.maxsize'),
            maxBackups: settings.get<number>('log.maxbackups'),
            maxAgeDays: settings.get<number>('log.maxage'),
            compress: settings.get<boolean>('log.compress'),
            // geth keeps logging to the console as well when --log.file is set.
            tee: true,
          },
        }
      : {}),
  };
}

async function startExec(ctx: ProgramContext): Promise<undefined | 'done'> {
  checkExecObservabilitySettings(ctx.settings);
  if (ctx.settings.subcommand?.name === 'init') return runInit(ctx);
  if (ctx.settings.subcommand?.name === 'import') return withImportProfiling(ctx, () => runImport(ctx));
  if (ctx.settings.subcommand?.name === 'export') return runExport(ctx);
  if (ctx.settings.subcommand?.name === 'attach') return runAttach(ctx);
  if (ctx.settings.subcommand?.name === 'console') return runConsole(ctx);
  if (ctx.settings.subcommand?.name === 'execute-witness') return runExecuteWitness(ctx);
  if (ctx.settings.subcommand?.name === 'snapshot') return runSnapshot(ctx);
  await serveExec(ctx);
}

/**
 * tern-exec without a sub-command: the --dev chain or the node over its database, with metrics and profiling.
 * Returns the running node (undefined for --dev); tern-pair calls this to host tern-exec in its own process.
 */
export async function serveExec(ctx: ProgramContext): Promise<ExecNode | undefined> {
  const { log } = ctx;
  const logger = log.logger.child('exec');
  logger.info('Starting tern-exec', { version: versionLine(), node: process.version });
  logNativeStatus(logger, nativeStatus());
  selectKzgLibrary(ctx.settings.get<string>('crypto.kzg'), ctx.settings.source('crypto.kzg') !== 'default', logger);
  const observability = await startExecObservability(ctx.settings, { logger, lifecycle: ctx.lifecycle });
  let node: ExecNode | undefined;
  if (ctx.settings.get<boolean>('dev')) observability.chainReady((await runDev(ctx, observability)).node.store);
  else node = await runNode(ctx, observability);
  // Said once the node is up (harnesses wait for this line before signalling).
  logger.warn('Not built yet, running without', { features: NOT_BUILT_DEFAULT_ON.join('; ') });
  return node;
}

export const EXEC_HOOKS: ProgramHooks = {
  program: EXEC_PROGRAM,
  loadToml: (path) => loadTomlConfig(EXEC_PROGRAM, path),
  loggerOptions,
  printCommand: (settings) => (settings.subcommand?.name === 'dumpconfig' ? dumpTomlConfig(settings) : undefined),
  start: startExec,
};
