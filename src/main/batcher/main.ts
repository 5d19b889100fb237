// tern-batcher: the batch submitter (the op-batcher role). Wires its options (cli/batcherOptions.ts builds them
// from the flags once), RPC clients, the transaction manager and the driver together.
import { readFileSync } from 'node:fs';
import { BATCHER_PROGRAM } from '../cli/batcherFlags.js';
import { batcherLoggerOptions, batcherOptions } from '../cli/batcherOptions.js';
import type { ProgramHooks } from '../cli/run.js';
import { TernError, UsageError } from '../common/errors.js';
import type { Lifecycle } from '../common/lifecycle.js';
import type { Logger, LogRoot } from '../common/logger/index.js';
import { RpcClient } from '../common/rpc/client.js';
import { versionLine } from '../common/version.js';
import { parseRollupConfig, type RollupConfig } from '../primitives/rollup/config.js';
import { startAdminRpc } from './admin.js';
import { daPublisherFromOptions } from './altda/daPublisher.js';
import { BatchSubmitter } from './driver.js';
import { signerFromPrivateKey } from './l1Tx.js';
import type { BatcherProgramOptions } from './options.js';
import { TxManager } from './txmgr.js';

/** The rollup config from --rollup.config, or from the rollup node (retried until it answers or we stop). */
async function loadRollupConfig(
  path: string | undefined,
  rollup: RpcClient,
  logger: Logger,
  signal: AbortSignal,
): Promise<RollupConfig> {
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --rollup.config ${path}: ${(err as Error).message}`);
    }
    try {
      return parseRollupConfig(JSON.parse(text));
    } catch (err) {
      throw new UsageError(`--rollup.config ${path}: ${(err as Error).message}`);
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return parseRollupConfig(await rollup.call('optimism_rollupConfig'));
    } catch (err) {
      if (err instanceof TernError && err.code === 'ROLLUP_CONFIG') throw err;
      if (signal.aborted) throw new TernError('ABORTED', 'stopped while waiting for the rollup node');
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn('Waiting for the rollup node (optimism_rollupConfig)', { err: (err as Error).message, attempt });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Starts tern-batcher from its options. */
export async function startBatcher({
  options,
  log,
  lifecycle,
}: {
  options: BatcherProgramOptions;
  log: LogRoot;
  lifecycle: Lifecycle;
}): Promise<undefined> {
  const { driver: driverOpts, txmgr: txOpts } = options;
  const logger = log.logger.child('batcher');
  logger.info('Starting tern-batcher', { version: versionLine(), node: process.version });
  const signal = lifecycle.signal;
  let signer: ReturnType<typeof signerFromPrivateKey>;
  try {
    signer = signerFromPrivateKey(options.privateKey);
  } catch (err) {
    throw new UsageError(`--private-key: ${(err as Error).message}`);
  }
  const timeoutMs = txOpts.networkTimeoutMs;
  const client = (url: string) => new RpcClient({ url, timeoutMs }, { logger, signal });
  const l1 = client(options.urls.l1);
  const l2 = client(options.urls.l2);
  const rollupRpc = client(options.urls.rollup);
  const rollup = await loadRollupConfig(options.rollupConfigPath, rollupRpc, logger, signal);
  if (signer.address !== rollup.genesis.systemConfig.batcherAddr) {
    logger.warn('The batcher key is not the genesis batcher address; derivation ignores other senders', {
      key: signer.address,
      genesisBatcher: rollup.genesis.systemConfig.batcherAddr,
    });
  }
  const txmgr = new TxManager(txOpts, { l1, signer, logger: logger.child('txmgr'), signal });
  const altDa = daPublisherFromOptions(options.altDa, logger);
  const driver = new BatchSubmitter(driverOpts, rollup, { logger, signal, l1, l2, rollup: rollupRpc, txmgr, altDa });
  logger.info('Batcher ready', {
    address: signer.address,
    inbox: rollup.batchInboxAddress,
    da: driverOpts.dataAvailabilityType,
    batchType: driverOpts.batchType,
    compression: driverOpts.compressionAlgo,
    stopped: driverOpts.stopped,
    altDa: altDa === undefined ? undefined : options.altDa.daServer,
  });
  driver.start();
  lifecycle.onStop('batcher', () => driver.stop());
  if (options.admin !== undefined) {
    const { server, address } = await startAdminRpc(options.admin, driver, { logger, signal });
    lifecycle.onStop('admin-rpc', () => server.stop());
    logger.info('Admin RPC listening', { url: `http://${address.host}:${address.port}` });
  }
  return undefined;
}

export const BATCHER_HOOKS: ProgramHooks = {
  program: BATCHER_PROGRAM,
  loggerOptions: batcherLoggerOptions,
  // Checked before anything starts, so a missing or conflicting flag is one line and exit status 2.
  printCommand: (settings) => {
    batcherOptions(settings);
    return undefined;
  },
  // The flags become typed options here, once; nothing below reads a flag by name.
  start: ({ settings, log, lifecycle }) => startBatcher({ options: batcherOptions(settings), log, lifecycle }),
};
