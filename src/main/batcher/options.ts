// The batcher's settings and their defaults (op-batcher's and op-service txmgr's defaults where they exist). The
// flag table (cli/batcherFlags.ts) reads its defaults from here.
import type { CompressionAlgo } from '../protocol/channel/channel.js';
import type { AltDaBatcherOptions } from './altda/daPublisher.js';
import type { DriverOptions } from './driver.js';

export type DataAvailabilityType = 'calldata' | 'blobs' | 'auto';
/** shadow: measures the real compressed size; ratio: estimates it from the input size and a fixed ratio. */
export type CompressorKind = 'shadow' | 'ratio';
export type CompressionAlgoName = 'zlib' | 'brotli' | 'brotli-9' | 'brotli-10' | 'brotli-11';

export const COMPRESSION_ALGOS: readonly CompressionAlgoName[] = [
  'zlib',
  'brotli',
  'brotli-9',
  'brotli-10',
  'brotli-11',
];
export const COMPRESSOR_KINDS: readonly CompressorKind[] = ['shadow', 'ratio'];
export const DA_TYPES: readonly DataAvailabilityType[] = ['calldata', 'blobs', 'auto'];
/** EIP-4844 (and Pectra's target) allow at most 6 blobs in one transaction. */
export const MAX_BLOBS_PER_TX = 6;

/** How channels are built and cut into frames. */
export interface ChannelOptions {
  /** L1 blocks a channel stays open at most; 0: no limit but the protocol's timeouts. */
  maxChannelDuration: number;
  /** L1 blocks subtracted from the channel timeout and sequencing window, so a channel lands in time. */
  subSafetyMargin: number;
  /** Frames per channel aimed at; with blobs also the blobs per transaction (at most 6). */
  targetNumFrames: number;
  /** Largest calldata batcher transaction payload (ignored for blobs: a blob's capacity is the limit). */
  maxL1TxSizeBytes: number;
  compressionAlgo: CompressionAlgoName;
  compressor: CompressorKind;
  /** For the ratio compressor: compressed size / input size assumed. */
  approxComprRatio: number;
  /** 0: singular batches, 1: span batches (from Delta; singular before it whatever this says). */
  batchType: 0 | 1;
  dataAvailabilityType: DataAvailabilityType;
}

/** How transactions are sent, watched and replaced (op-service txmgr's settings). */
export interface TxManagerOptions {
  numConfirmations: number;
  /** A transaction not included this long is sent again with bumped fees. */
  resubmissionTimeoutMs: number;
  /** How often receipts and the L1 head are polled. */
  receiptQueryIntervalMs: number;
  /** Fees never go above this multiple of the fees suggested when the transaction was first sent. */
  feeLimitMultiplier: number;
  /** Floor for the priority fee, in wei. */
  minTipCap: bigint;
  /** Floor for the base fee used in fee caps, in wei. */
  minBaseFee: bigint;
  /** "nonce too low" answers, with none of our transactions seen, after which a send is given up. */
  safeAbortNonceTooLowCount: number;
  /** Time allowed for one L1 request. */
  networkTimeoutMs: number;
  /** Send blob sidecars with cell proofs (EIP-7594, L1 after Osaka) instead of one proof per blob. */
  cellProofs: boolean;
}

export const channelDefaults: ChannelOptions = {
  maxChannelDuration: 0,
  subSafetyMargin: 10,
  targetNumFrames: 1,
  maxL1TxSizeBytes: 120_000,
  compressionAlgo: 'zlib',
  compressor: 'shadow',
  approxComprRatio: 0.6,
  batchType: 0,
  dataAvailabilityType: 'calldata',
};

export const txManagerDefaults: TxManagerOptions = {
  numConfirmations: 10,
  resubmissionTimeoutMs: 48_000,
  receiptQueryIntervalMs: 12_000,
  feeLimitMultiplier: 5,
  minTipCap: 0n,
  minBaseFee: 0n,
  safeAbortNonceTooLowCount: 3,
  networkTimeoutMs: 10_000,
  cellProofs: false,
};

export const batcherDefaults = {
  pollIntervalMs: 6_000,
  maxPendingTx: 1,
  stopped: false,
} as const;

/** The compression a name stands for: algorithm and level (brotli alone means quality 10, as op-batcher). */
export function compressionOf(name: CompressionAlgoName): { algo: CompressionAlgo; level: number } {
  if (name === 'zlib') return { algo: 'zlib', level: 9 };
  const level = name === 'brotli' ? 10 : Number(name.slice('brotli-'.length));
  return { algo: 'brotli', level };
}

/** tern-batcher's options as one record (cli/batcherOptions.ts builds it from the flags once). */
export interface BatcherProgramOptions {
  driver: DriverOptions;
  txmgr: TxManagerOptions;
  /** --private-key, as given (l1Tx.ts parses it). */
  privateKey: string;
  /** --l1-eth-rpc, --l2-eth-rpc, --rollup-rpc */
  urls: { l1: string; l2: string; rollup: string };
  /** --rollup.config; undefined asks the rollup node. */
  rollupConfigPath: string | undefined;
  /** --rpc.addr and --rpc.port with --rpc.enable-admin; undefined serves no admin RPC. */
  admin: { host: string; port: number } | undefined;
  /** --altda.*: frames to a DA server, commitments to L1. */
  altDa: AltDaBatcherOptions;
}
