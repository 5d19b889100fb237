// tern-batcher's parsed flags turned into its typed options, once per run: the only place that reads tern-batcher's
// flags by name (the defaults come from batcher/options.ts through the flag table).

import { type AltDaBatcherOptions, checkAltDaOptions } from '../batcher/altda/daPublisher.js';
import type { DriverOptions } from '../batcher/driver.js';
import {
  type BatcherProgramOptions,
  type CompressionAlgoName,
  type CompressorKind,
  type DataAvailabilityType,
  MAX_BLOBS_PER_TX,
  type TxManagerOptions,
} from '../batcher/options.js';
import { UsageError } from '../common/errors.js';
import { type LogFormat, type LoggerOptions, levelFromName } from '../common/logger/index.js';
import type { Settings } from './parse.js';

const REQUIRED = ['l1-eth-rpc', 'l2-eth-rpc', 'rollup-rpc', 'private-key'] as const;

const gweiToWei = (g: number): bigint => BigInt(Math.round(g * 1e9));

/** --log.level, --log.format, --log.color, --log.pid; written to stdout as op-batcher does. */
export function batcherLoggerOptions(settings: Pick<Settings, 'get'>): LoggerOptions {
  return {
    level: levelFromName(settings.get<string>('log.level')),
    format: settings.get<LogFormat>('log.format'),
    color: settings.get<boolean>('log.color'),
    pid: settings.get<boolean>('log.pid'),
    output: 'stdout',
  };
}

/** All of tern-batcher's options; throws UsageError on a missing flag or a bad combination. */
export function batcherOptions(s: Pick<Settings, 'get'>): BatcherProgramOptions {
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
  const altDa: AltDaBatcherOptions = {
    enabled: s.get<boolean>('altda.enabled'),
    daServer: s.get<string | undefined>('altda.da-server'),
    daService: s.get<boolean>('altda.da-service'),
    putTimeoutMs: s.get<number>('altda.put-timeout'),
    maxConcurrent: s.get<number>('altda.max-concurrent-da-requests'),
  };
  checkAltDaOptions(altDa, da);
  return {
    driver,
    txmgr,
    privateKey: s.get<string>('private-key'),
    urls: { l1: s.get<string>('l1-eth-rpc'), l2: s.get<string>('l2-eth-rpc'), rollup: s.get<string>('rollup-rpc') },
    rollupConfigPath: s.get<string | undefined>('rollup.config'),
    admin: s.get<boolean>('rpc.enable-admin')
      ? { host: s.get<string>('rpc.addr'), port: s.get<number>('rpc.port') }
      : undefined,
    altDa,
  };
}
