// tern-batcher: the batch submitter (the op-batcher role). Wires settings, RPC clients, the transaction manager
// and the driver together.
import { readFileSync } from 'node:fs';
import { BATCHER_PROGRAM } from '../cli/batcherFlags.js';
import type { Settings } from '../cli/parse.js';
import type { ProgramContext, ProgramHooks } from '../cli/run.js';
import { TernError, UsageError } from '../common/errors.js';
import { type LogFormat, type Logger, levelFromName } from '../common/logger/index.js';
import { RpcClient } from '../common/rpc/client.js';
import { versionLine } from '../common/version.js';
import { parseRollupConfig, type RollupConfig } from '../primitives/rollup/config.js';
import { startAdminRpc } from './admin.js';
import { daPublisherFromSettings } from './altda/daPublisher.js';
import { BatchSubmitter, type DriverOptions } from './driver.js';
import { signerFromPrivateKey } from './l1Tx.js';
import {
  type CompressionAlgoName,
  type CompressorKind,
  type DataAvailabilityType,
  MAX_BLOBS_PER_TX,
  type TxManagerOptions,
} from './options.js';
import { TxManager } from './txmgr.js';

const REQUIRED = ['l1-eth-rpc', 'l2-eth-rpc', 'rollup-rpc', 'private-key'] as const;

const gweiToWei = (g: number): bigint => BigInt(Math.round(g * 1e9));

/** The driver's and the transaction manager's options from the settings; throws UsageError on bad combinations. */
export function batcherOptions(s: Settings): { driver: DriverOptions; txmgr: TxManagerOptions } {
  for (const name of REQUIRED) {
    if (s.get(name) === undefined) throw new UsageError(`flag --${name} is required`);
  }
  const da = s.get<DataAvailabilityType>('data-availability-type');
  const target = s.get<number>('target-num-frames');
  if (da === 'blobs' && target > MAX_BLOBS_PER_TX) {
    throw new UsageError(
      `--target-num-frames=${target} is more blobs than a transaction holds (at most ${MAX_BLOBS_PER_TX})`,
    );
  }
  const txmgr: TxManagerOptions = {
    numConfirmations: s.get<number>('num-confirmations'),
    resubmissionTimeoutMs: s.get<number>('resubmission-timeout'),
    receiptQueryIntervalMs: s.get<number>('txmgr.receipt-query-interval'),
    feeLimitMultiplier: s.get<number>('fee-limit-multiplier'),
    minTipCap: gweiToWei(s.get<number>('txmgr.min-tip-cap')),
    minBaseFee: gweiToWei(s.get<number>('txmgr.min-basefee')),
    safeAbortNonceTooLowCount: s.get<number>('safe-abort-nonce-too-low-count'),
    networkTimeoutMs: s.get<number>('network-timeout'),
    cellProofs: s.get<boolean>('txmgr.enable-cell-proofs'),
  };
  const driver: DriverOptions = {
    maxChannelDuration: s.get<number>('max-channel-duration'),
    subSafetyMargin: s.get<number>('sub-safety-margin'),
    targetNumFrames: target,
    maxL1TxSizeBytes: s.get<number>('max-l1-tx-size-bytes'),
    compressionAlgo: s.get<CompressionAlgoName>('compression-algo'),
    compressor: s.get<CompressorKind>('compressor'),
    approxComprRatio: s.get<number>('approx-compr-ratio'),
    batchType: s.get<number>('batch-type') === 1 ? 1 : 0,
    dataAvailabilityType: da,
    pollIntervalMs: s.get<number>('poll-interval'),
    maxPendingTx: s.get<number>('max-pending-tx'),
    stopped: s.get<boolean>('stopped'),
    cellProofs: txmgr.cellProofs,
  };
  return { driver, txmgr };
}

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

async function startBatcher({ settings, log, lifecycle }: ProgramContext): Promise<undefined> {
  const { driver: driverOpts, txmgr: txOpts } = batcherOptions(settings);
  const logger = log.logger.child('batcher');
  logger.info('Starting tern-batcher', { version: versionLine(), node: process.version });
  const signal = lifecycle.signal;
  let signer: ReturnType<typeof signerFromPrivateKey>;
  try {
    signer = signerFromPrivateKey(settings.get<string>('private-key'));
  } catch (err) {
    throw new UsageError(`--private-key: ${(err as Error).message}`);
  }
  const timeoutMs = txOpts.networkTimeoutMs;
  const client = (flag: string) => new RpcClient({ url: settings.get<string>(flag), timeoutMs }, { logger, signal });
  const l1 = client('l1-eth-rpc');
  const l2 = client('l2-eth-rpc');
  const rollupRpc = client('rollup-rpc');
  const rollup = await loadRollupConfig(settings.get<string | undefined>('rollup.config'), rollupRpc, logger, signal);
  if (signer.address !== rollup.genesis.systemConfig.batcherAddr) {
    logger.warn('The batcher key is not the genesis batcher address; derivation ignores other senders', {
      key: signer.address,
      genesisBatcher: rollup.genesis.systemConfig.batcherAddr,
    });
  }
  const txmgr = new TxManager(txOpts, { l1, signer, logger: logger.child('txmgr'), signal });
  const altDa = daPublisherFromSettings(settings, logger);
  const driver = new BatchSubmitter(driverOpts, rollup, { logger, signal, l1, l2, rollup: rollupRpc, txmgr, altDa });
  logger.info('Batcher ready', {
    address: signer.address,
    inbox: rollup.batchInboxAddress,
    da: driverOpts.dataAvailabilityType,
    batchType: driverOpts.batchType,
    compression: driverOpts.compressionAlgo,
    stopped: driverOpts.stopped,
    altDa: altDa === undefined ? undefined : settings.get<string>('altda.da-server'),
  });
  driver.start();
  lifecycle.onStop('batcher', () => driver.stop());
  if (settings.get<boolean>('rpc.enable-admin')) {
    const { server, address } = await startAdminRpc(
      { host: settings.get<string>('rpc.addr'), port: settings.get<number>('rpc.port') },
      driver,
      { logger, signal },
    );
    lifecycle.onStop('admin-rpc', () => server.stop());
    logger.info('Admin RPC listening', { url: `http://${address.host}:${address.port}` });
  }
  return undefined;
}

export const BATCHER_HOOKS: ProgramHooks = {
  program: BATCHER_PROGRAM,
  loggerOptions: (settings) => ({
    level: levelFromName(settings.get<string>('log.level')),
    format: settings.get<LogFormat>('log.format'),
    color: settings.get<boolean>('log.color'),
    pid: settings.get<boolean>('log.pid'),
    output: 'stdout',
  }),
  // Checked before anything starts, so a missing or conflicting flag is one line and exit status 2.
  printCommand: (settings) => {
    batcherOptions(settings);
    return undefined;
  },
  start: startBatcher,
};
