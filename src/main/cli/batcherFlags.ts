// The flag table of tern-batcher (the op-batcher role): op-batcher's flag names and defaults (op-batcher/flags and
// op-service txmgr), env vars TERN_BATCHER_*. Defaults come from the batcher's options (batcher/options.ts).

import {
  batcherDefaults,
  COMPRESSION_ALGOS,
  COMPRESSOR_KINDS,
  channelDefaults,
  DA_TYPES,
  txManagerDefaults,
} from '../batcher/options.js';
import { altDaFlags } from './altDaFlags.js';
import type { FlagSpec, ProgramSpec } from './flag.js';
import { LOGGING_FLAGS } from './logFlags.js';

const ENDPOINTS = 'Endpoints and rollup';
const CHANNELS = 'Channels and frames';
const TXMGR = 'Transaction manager';
const RPC = 'Admin RPC';
const MISC = 'Miscellaneous';
const ALTDA = 'Alternative data availability (experimental)';

const HTTP_WS = ['http', 'https', 'ws', 'wss'] as const;
const gwei = (wei: bigint): number => Number(wei) / 1e9;

const FLAGS: readonly FlagSpec[] = [
  {
    name: 'help',
    aliases: ['h'],
    kind: 'bool',
    default: false,
    help: 'Print help and exit.',
    category: MISC,
    implemented: true,
  },
  {
    name: 'version',
    aliases: ['v'],
    kind: 'bool',
    default: false,
    help: 'Print the version and exit.',
    category: MISC,
    implemented: true,
  },

  {
    name: 'l1-eth-rpc',
    kind: 'url',
    schemes: HTTP_WS,
    help: 'Layer-1 JSON-RPC endpoint (required): batcher transactions are sent and watched there.',
    category: ENDPOINTS,
    implemented: true,
  },
  {
    name: 'l2-eth-rpc',
    kind: 'url',
    schemes: HTTP_WS,
    help: "The sequencer's execution client JSON-RPC endpoint (tern-exec/op-geth; required): L2 blocks are read there.",
    category: ENDPOINTS,
    implemented: true,
  },
  {
    name: 'rollup-rpc',
    kind: 'url',
    schemes: HTTP_WS,
    help: "The sequencer's rollup node RPC endpoint (tern-node/op-node; required): sync status and rollup config.",
    category: ENDPOINTS,
    implemented: true,
  },
  {
    name: 'rollup.config',
    kind: 'path',
    help: "Rollup configuration file (rollup.json); when unset the rollup node's optimism_rollupConfig is used.",
    category: ENDPOINTS,
    implemented: true,
  },
  {
    name: 'private-key',
    kind: 'hex32',
    help: 'Private key of the batcher account (32 bytes hex; required). It must be the batcher address of the system config.',
    category: ENDPOINTS,
    implemented: true,
  },

  {
    name: 'data-availability-type',
    kind: 'enum',
    values: DA_TYPES,
    default: channelDefaults.dataAvailabilityType,
    help: 'Where batches go on layer 1: calldata (type-2 transactions), blobs (type-3 transactions) or auto (the cheaper of the two, chosen per channel).',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'max-channel-duration',
    kind: 'uint',
    default: channelDefaults.maxChannelDuration,
    help: 'The maximum duration of L1 blocks to keep a channel open. 0 to disable.',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'sub-safety-margin',
    kind: 'uint',
    default: channelDefaults.subSafetyMargin,
    help: "The batcher tx submission safety margin (in L1 blocks) to subtract from a channel's timeout and sequencing window, to guarantee safe inclusion of a channel on L1.",
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'target-num-frames',
    kind: 'uint',
    min: 1,
    default: channelDefaults.targetNumFrames,
    help: 'The target number of frames to create per channel. With blobs also the number of blobs per transaction (at most 6).',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'max-l1-tx-size-bytes',
    kind: 'uint',
    min: 100,
    default: channelDefaults.maxL1TxSizeBytes,
    help: 'The maximum size of a batch tx submitted to L1. Ignored for blobs, where the blob capacity is used.',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'compression-algo',
    kind: 'enum',
    values: COMPRESSION_ALGOS,
    default: channelDefaults.compressionAlgo,
    help: 'The compression algorithm: zlib, or brotli (quality 10) / brotli-9 / brotli-10 / brotli-11, which need Fjord active on L1 (zlib is used until then).',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'compressor',
    kind: 'enum',
    values: COMPRESSOR_KINDS,
    default: channelDefaults.compressor,
    help: 'How a channel decides it is full: shadow measures the real compressed size; ratio estimates it with --approx-compr-ratio.',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'approx-compr-ratio',
    kind: 'float',
    min: 0.01,
    max: 1,
    default: channelDefaults.approxComprRatio,
    help: 'The approximate compression ratio (<= 1.0). Only relevant for the ratio compressor.',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'batch-type',
    kind: 'uint',
    max: 1,
    default: channelDefaults.batchType,
    help: 'The batch type. 0 for singular batches and 1 for span batches (span batches need Delta; singular before it).',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'poll-interval',
    kind: 'duration',
    default: batcherDefaults.pollIntervalMs,
    help: 'How frequently to poll L2 for new blocks.',
    category: CHANNELS,
    implemented: true,
  },
  {
    name: 'max-pending-tx',
    kind: 'uint',
    default: batcherDefaults.maxPendingTx,
    help: 'The maximum number of pending transactions. 0 for no limit.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'stopped',
    kind: 'bool',
    default: batcherDefaults.stopped,
    help: 'Initialize the batcher in a stopped state. The batcher can be started using the admin_startBatcher RPC.',
    category: MISC,
    implemented: true,
  },

  {
    name: 'num-confirmations',
    kind: 'uint',
    min: 1,
    default: txManagerDefaults.numConfirmations,
    help: 'Number of confirmations to wait after sending a transaction.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'resubmission-timeout',
    kind: 'duration',
    default: txManagerDefaults.resubmissionTimeoutMs,
    help: 'Duration to wait before resubmitting a transaction to L1 with bumped fees.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'txmgr.receipt-query-interval',
    kind: 'duration',
    default: txManagerDefaults.receiptQueryIntervalMs,
    help: 'Frequency to poll for receipts.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'fee-limit-multiplier',
    kind: 'uint',
    min: 1,
    default: txManagerDefaults.feeLimitMultiplier,
    help: 'The multiplier applied to the fees suggested when a transaction was first sent, beyond which fee bumping stops.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'txmgr.min-tip-cap',
    kind: 'float',
    min: 0,
    default: gwei(txManagerDefaults.minTipCap),
    help: 'Enforces a minimum tip cap (in GWei) to use when determining tx fees.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'txmgr.min-basefee',
    kind: 'float',
    min: 0,
    default: gwei(txManagerDefaults.minBaseFee),
    help: 'Enforces a minimum base fee (in GWei) to assume when determining tx fees.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'safe-abort-nonce-too-low-count',
    kind: 'uint',
    min: 1,
    default: txManagerDefaults.safeAbortNonceTooLowCount,
    help: 'Number of ErrNonceTooLow observations required to give up on a tx at a particular nonce without receiving confirmation.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'network-timeout',
    kind: 'duration',
    default: txManagerDefaults.networkTimeoutMs,
    help: 'Timeout for all network operations.',
    category: TXMGR,
    implemented: true,
  },
  {
    name: 'txmgr.enable-cell-proofs',
    kind: 'bool',
    default: txManagerDefaults.cellProofs,
    help: 'Send blob sidecars with cell proofs (EIP-7594, layer 1 after Osaka) instead of one KZG proof per blob.',
    category: TXMGR,
    implemented: true,
  },

  ...LOGGING_FLAGS,

  {
    name: 'rpc.enable-admin',
    kind: 'bool',
    default: false,
    help: 'Serve the admin API (admin_startBatcher, admin_stopBatcher) on --rpc.addr/--rpc.port.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.addr',
    kind: 'host',
    default: '0.0.0.0',
    help: 'RPC listening address.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.port',
    kind: 'port',
    default: 8545,
    help: 'RPC listening port (0 picks a free one).',
    category: RPC,
    implemented: true,
  },
  // op-batcher's --altda.* (op-alt-da CLIConfig): frames go to a DA server, commitments to L1 as calldata.
  ...altDaFlags(
    ALTDA,
    'Enable alternative data availability mode: post frames to the DA server and commitments to L1.',
  ),
];

export const BATCHER_PROGRAM: ProgramSpec = {
  program: 'tern-batcher',
  envPrefix: 'TERN_BATCHER',
  summary: "Batch submitter (op-batcher role): posts the sequencer's layer-2 blocks to the layer-1 batch inbox.",
  flags: FLAGS,
  subcommands: [],
  tomlConfig: false,
};
