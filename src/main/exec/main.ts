// tern-exec: the execution client (the op-geth role). This module wires the program together from its
// options (cli/execOptions.ts builds them from the flags once); each subsystem lives in its own folder.
import { EXEC_PROGRAM } from '../cli/execFlags.js';
import { execLoggerOptions, execOptions } from '../cli/execOptions.js';
import type { ProgramContext, ProgramHooks } from '../cli/run.js';
import { dumpTomlConfig, loadTomlConfig } from '../cli/toml.js';
import { logNativeStatus } from '../common/metrics/base.js';
import { versionLine } from '../common/version.js';
import { nativeStatus } from '../native/index.js';
import { runAttach, runConsole } from './cmd/console.js';
import { runExecuteWitness } from './cmd/executeWitness.js';
import { runExport } from './cmd/export.js';
import { runExportHistory, runImportHistory } from './cmd/history.js';
import { runImport } from './cmd/import.js';
import { runInit } from './cmd/init.js';
import { runSnapshot } from './cmd/pruneState.js';
import { selectKzgLibrary } from './cryptoKzg.js';
import { runDev } from './dev/start.js';
import { installEvmPatches, logEvmPatchStatus } from './evm/patches.js';
import { startExecObservability, withImportProfiling } from './metrics/observability.js';
import { logNetworkingSettings } from './networking.js';
import { type ExecNode, runNode } from './node.js';
import type { ExecContext } from './options.js';

async function startExec({ settings, log, lifecycle }: ProgramContext): Promise<undefined | 'done'> {
  // The flags become typed options here, once; nothing below reads a flag by name.
  const ctx: ExecContext = { options: execOptions(settings), log, lifecycle };
  const { command } = ctx.options;
  if (command === 'init') return runInit(ctx);
  if (command === 'import') {
    logEvmPatchStatus(log.logger.child('exec'), await installEvmPatches());
    return withImportProfiling(ctx.options.observability, { logger: log.logger, lifecycle }, () => runImport(ctx));
  }
  if (command === 'export') return runExport(ctx);
  if (command === 'export-history') return runExportHistory(ctx);
  if (command === 'import-history') return runImportHistory(ctx);
  if (command === 'attach') return runAttach(ctx);
  if (command === 'console') return runConsole(ctx);
  if (command === 'execute-witness') return runExecuteWitness(ctx);
  if (command === 'snapshot') return runSnapshot(ctx);
  await serveExec(ctx);
}

/**
 * tern-exec without a sub-command: the --dev chain or the node over its database, with metrics and profiling.
 * Returns the running node (undefined for --dev); tern-pair calls this to host tern-exec in its own process.
 */
export async function serveExec(ctx: ExecContext): Promise<ExecNode | undefined> {
  const { log, options } = ctx;
  const logger = log.logger.child('exec');
  logger.info('Starting tern-exec', { version: versionLine(), node: process.version });
  logNativeStatus(logger, nativeStatus());
  logEvmPatchStatus(logger, await installEvmPatches());
  logNetworkingSettings(options.networking, logger);
  selectKzgLibrary(options.kzg.library, options.kzg.explicit, logger);
  const observability = await startExecObservability(options.observability, { logger, lifecycle: ctx.lifecycle });
  let node: ExecNode | undefined;
  if (options.dev) observability.chainReady((await runDev(ctx, options.dev, observability)).node.store);
  else node = await runNode(ctx, observability);
  // Said once the node is up (harnesses wait for this line before signalling).
  logger.info('Started tern-exec');
  // The one default that is not built: said once at startup, never silently skipped.
  if (!options.dev && options.networking.syncMode === 'snap')
    logger.warn('Not built yet, running without', { features: 'snap sync (--syncmode snap runs full sync)' });
  return node;
}

export const EXEC_HOOKS: ProgramHooks = {
  program: EXEC_PROGRAM,
  loadToml: (path) => loadTomlConfig(EXEC_PROGRAM, path),
  loggerOptions: execLoggerOptions,
  printCommand: (settings) => (settings.subcommand?.name === 'dumpconfig' ? dumpTomlConfig(settings) : undefined),
  start: startExec,
};
