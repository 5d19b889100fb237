// The rollup configuration in op-node's rollup.json format: parsing with clear errors, fork predicates, the
// per-fork protocol constants derivation reads, fork-time overrides, and the JSON form optimism_rollupConfig serves.
import { TernError } from '../errors.js';
import { OP_UPGRADES, type OpUpgrade } from '../op/forks.js';
import type { BlockId } from './blockRef.js';

/** Protocol constants (specs/protocol/derivation.md "Protocol Parameters", fjord/derivation.md). */
export const MAX_FRAME_LEN = 1_000_000;
export const MAX_RLP_BYTES_PER_CHANNEL_BEDROCK = 10_000_000;
export const MAX_RLP_BYTES_PER_CHANNEL_FJORD = 100_000_000;
export const MAX_CHANNEL_BANK_SIZE_BEDROCK = 100_000_000;
export const MAX_CHANNEL_BANK_SIZE_FJORD = 1_000_000_000;
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;
export const MAX_SEQUENCER_DRIFT_FJORD = 1800;
export const CHANNEL_TIMEOUT_GRANITE = 50;

export interface GenesisSystemConfig {
  /** 20-byte address, lowercase hex. */
  readonly batcherAddr: string;
  /** 32-byte words, lowercase hex. */
  readonly overhead: string;
  readonly scalar: string;
  readonly gasLimit: bigint;
  /** Holocene: 8 bytes (denominator ‖ elasticity), lowercase hex. */
  readonly eip1559Params?: string;
  /** Isthmus: 32 bytes, lowercase hex. */
  readonly operatorFeeParams?: string;
  /** Jovian. */
  readonly minBaseFee?: bigint;
  /** Jovian. */
  readonly daFootprintGasScalar?: number;
}

export interface RollupGenesis {
  readonly l1: BlockId;
  readonly l2: BlockId;
  readonly l2Time: number;
  readonly systemConfig: GenesisSystemConfig;
}

export interface AltDaConfig {
  readonly daChallengeContractAddress?: string;
  readonly daCommitmentType?: string;
  readonly daChallengeWindow?: number;
  readonly daResolveWindow?: number;
}

export interface ChainOpConfig {
  readonly eip1559Elasticity: bigint;
  readonly eip1559Denominator: bigint;
  readonly eip1559DenominatorCanyon?: bigint;
}

export interface RollupConfig {
  readonly genesis: RollupGenesis;
  readonly blockTime: number;
  /** The pre-Fjord drift; use maxSequencerDrift(cfg, l1Time) in derivation. 0 when Fjord is active at genesis. */
  readonly maxSequencerDrift: number;
  readonly seqWindowSize: number;
  /** The pre-Granite timeout; use channelTimeout(cfg, l1Time) in derivation. */
  readonly channelTimeout: number;
  readonly channelTimeoutGranite: number;
  readonly l1ChainId: bigint;
  readonly l2ChainId: bigint;
  /** Activation timestamps; a fork that is absent never activates. */
  readonly forks: Readonly<Partial<Record<OpUpgrade, number>>>;
  /** Until (excluding) this L1 time, L1 info uses Cancun's blob base fee fraction even after L1's Prague. */
  readonly pectraBlobScheduleTime?: number;
  readonly batchInboxAddress: string;
  readonly depositContractAddress: string;
  readonly l1SystemConfigAddress: string;
  readonly protocolVersionsAddress?: string;
  readonly superchainConfigAddress?: string;
  readonly daChallengeContractAddress?: string;
  readonly blobsEnabledL1Timestamp?: number;
  readonly interopMessageExpiryWindow?: number;
  readonly altDa?: AltDaConfig;
  readonly chainOpConfig?: ChainOpConfig;
}

function fail(message: string): never {
  throw new TernError('ROLLUP_CONFIG', `rollup config: ${message}`, { severity: 'critical' });
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function uint(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
  }
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  return fail(`${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
}

function big(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return BigInt(v);
  return fail(`${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
}

function hexBytes(v: unknown, size: number, what: string): string {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v) || v.length !== 2 + size * 2) {
    return fail(`${what} must be ${size} bytes of 0x-prefixed hex, got ${JSON.stringify(v)}`);
  }
  return v.toLowerCase();
}

const address = (v: unknown, what: string) => hexBytes(v, 20, what);
const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;
const ZERO_HASH = `0x${'00'.repeat(32)}`;

function optional<T>(o: Obj, key: string, read: (v: unknown, what: string) => T): T | undefined {
  const v = o[key];
  return v === undefined || v === null ? undefined : read(v, key);
}

function blockId(v: unknown, what: string): BlockId {
  if (!isObj(v)) return fail(`${what} is missing`);
  return { hash: hexBytes(v.hash, 32, `${what}.hash`), number: uint(v.number ?? 0, `${what}.number`) };
}

function systemConfig(v: unknown): GenesisSystemConfig {
  if (!isObj(v)) return fail('genesis.system_config is missing');
  // The registry's TOML spells the batcher `batcherAddress`; rollup.json spells it `batcherAddr`.
  const batcher = v.batcherAddr ?? v.batcherAddress;
  const word = (x: unknown, what: string) => hexBytes(x ?? ZERO_HASH, 32, `genesis.system_config.${what}`);
  const sc: GenesisSystemConfig = {
    batcherAddr: address(batcher, 'genesis.system_config.batcherAddr'),
    overhead: word(v.overhead, 'overhead'),
    scalar: word(v.scalar, 'scalar'),
    gasLimit: big(v.gasLimit, 'genesis.system_config.gasLimit'),
  };
  const extra: Record<string, unknown> = {};
  if (v.eip1559Params != null)
    extra.eip1559Params = hexBytes(v.eip1559Params, 8, 'genesis.system_config.eip1559Params');
  if (v.operatorFeeParams != null) {
    extra.operatorFeeParams = hexBytes(v.operatorFeeParams, 32, 'genesis.system_config.operatorFeeParams');
  }
  if (v.minBaseFee != null) extra.minBaseFee = big(v.minBaseFee, 'genesis.system_config.minBaseFee');
  if (v.daFootprintGasScalar != null) {
    extra.daFootprintGasScalar = uint(v.daFootprintGasScalar, 'genesis.system_config.daFootprintGasScalar');
  }
  return { ...sc, ...extra };
}

const KNOWN_KEYS = new Set([
  'genesis',
  'block_time',
  'max_sequencer_drift',
  'seq_window_size',
  'channel_timeout',
  'channel_timeout_granite',
  'granite_channel_timeout',
  'l1_chain_id',
  'l2_chain_id',
  ...OP_UPGRADES.map((f) => `${f}_time`),
  'pectra_blob_schedule_time',
  'batch_inbox_address',
  'deposit_contract_address',
  'l1_system_config_address',
  'protocol_versions_address',
  'superchain_config_address',
  'da_challenge_contract_address',
  'da_challenge_address',
  'da_challenge_window',
  'da_resolve_window',
  'use_plasma',
  'use_alt_da',
  'blobs_data',
  'interop_message_expiry_window',
  'alt_da',
  'chain_op_config',
]);

/**
 * Parses op-node's rollup.json (already JSON-parsed). Unknown fields are rejected, as op-node does, so a typo never
 * silently leaves a fork unscheduled. Throws TernError ROLLUP_CONFIG with a message naming the field.
 */
export function parseRollupConfig(json: unknown): RollupConfig {
  if (!isObj(json)) return fail('must be a JSON object');
  const unknown = Object.keys(json).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) fail(`unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  const g = json.genesis;
  if (!isObj(g)) fail('genesis is missing (need genesis.l1, genesis.l2, genesis.l2_time, genesis.system_config)');
  const forks: Partial<Record<OpUpgrade, number>> = {};
  for (const f of OP_UPGRADES) {
    const t = optional(json, `${f}_time`, uint);
    if (t !== undefined) forks[f] = t;
  }
  const alt = json.alt_da;
  const op = json.chain_op_config;
  const cfg: RollupConfig = {
    genesis: {
      l1: blockId(g.l1, 'genesis.l1'),
      l2: blockId(g.l2, 'genesis.l2'),
      l2Time: uint(g.l2_time, 'genesis.l2_time'),
      systemConfig: systemConfig(g.system_config),
    },
    blockTime: uint(json.block_time, 'block_time'),
    maxSequencerDrift: uint(json.max_sequencer_drift ?? 0, 'max_sequencer_drift'),
    seqWindowSize: uint(json.seq_window_size, 'seq_window_size'),
    channelTimeout: uint(json.channel_timeout, 'channel_timeout'),
    channelTimeoutGranite: uint(
      json.channel_timeout_granite ?? json.granite_channel_timeout ?? CHANNEL_TIMEOUT_GRANITE,
      'channel_timeout_granite',
    ),
    l1ChainId: big(json.l1_chain_id, 'l1_chain_id'),
    l2ChainId: big(json.l2_chain_id, 'l2_chain_id'),
    forks,
    batchInboxAddress: address(json.batch_inbox_address, 'batch_inbox_address'),
    depositContractAddress: address(json.deposit_contract_address, 'deposit_contract_address'),
    l1SystemConfigAddress: address(json.l1_system_config_address ?? ZERO_ADDRESS, 'l1_system_config_address'),
    ...defined('pectraBlobScheduleTime', optional(json, 'pectra_blob_schedule_time', uint)),
    ...defined('protocolVersionsAddress', optional(json, 'protocol_versions_address', address)),
    ...defined('superchainConfigAddress', optional(json, 'superchain_config_address', address)),
    ...defined(
      'daChallengeContractAddress',
      optional(json, 'da_challenge_contract_address', address) ?? optional(json, 'da_challenge_address', address),
    ),
    ...defined('blobsEnabledL1Timestamp', optional(json, 'blobs_data', uint)),
    ...defined('interopMessageExpiryWindow', optional(json, 'interop_message_expiry_window', uint)),
    ...(isObj(alt)
      ? {
          altDa: {
            ...defined('daChallengeContractAddress', optional(alt, 'da_challenge_contract_address', address)),
            ...defined(
              'daCommitmentType',
              optional(alt, 'da_commitment_type', (v) => String(v)),
            ),
            ...defined('daChallengeWindow', optional(alt, 'da_challenge_window', uint)),
            ...defined('daResolveWindow', optional(alt, 'da_resolve_window', uint)),
          },
        }
      : {}),
    ...(isObj(op)
      ? {
          chainOpConfig: {
            eip1559Elasticity: big(op.eip1559Elasticity, 'chain_op_config.eip1559Elasticity'),
            eip1559Denominator: big(op.eip1559Denominator, 'chain_op_config.eip1559Denominator'),
            ...defined(
              'eip1559DenominatorCanyon',
              optional(op, 'eip1559DenominatorCanyon', (v) => big(v, 'chain_op_config.eip1559DenominatorCanyon')),
            ),
          },
        }
      : {}),
  };
  checkRollupConfig(cfg);
  return cfg;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** op-node's Config.Check: the consistency rules a rollup config must meet before the node starts. */
export function checkRollupConfig(cfg: RollupConfig): void {
  if (cfg.blockTime === 0) fail('block_time cannot be 0');
  if (cfg.channelTimeout === 0) fail('channel_timeout must be set; it should cover at least one L1 block time');
  if (cfg.seqWindowSize < 2) fail('seq_window_size must be at least 2');
  if (cfg.maxSequencerDrift === 0 && !isFjord(cfg, cfg.genesis.l2Time)) {
    fail('max_sequencer_drift must be greater than 0 (it may only be omitted when Fjord is active at genesis)');
  }
  if (cfg.genesis.l1.hash === ZERO_HASH) fail('genesis.l1.hash is missing');
  if (cfg.genesis.l2.hash === ZERO_HASH) fail('genesis.l2.hash is missing');
  if (cfg.genesis.l1.hash === cfg.genesis.l2.hash) fail('genesis.l1.hash and genesis.l2.hash cannot be the same');
  if (cfg.genesis.l2Time === 0) fail('genesis.l2_time is missing');
  if (cfg.genesis.systemConfig.batcherAddr === ZERO_ADDRESS) fail('genesis.system_config.batcherAddr is missing');
  if (/^0x0+$/.test(cfg.genesis.systemConfig.scalar)) fail('genesis.system_config.scalar is missing');
  if (cfg.genesis.systemConfig.gasLimit === 0n) fail('genesis.system_config.gasLimit is missing');
  if (cfg.batchInboxAddress === ZERO_ADDRESS) fail('batch_inbox_address is missing');
  if (cfg.depositContractAddress === ZERO_ADDRESS) fail('deposit_contract_address is missing');
  if (cfg.l1ChainId === 0n) fail('l1_chain_id must be a positive integer');
  if (cfg.l2ChainId === 0n) fail('l2_chain_id must be a positive integer');
  if (cfg.l1ChainId === cfg.l2ChainId) fail('l1_chain_id and l2_chain_id must be different');
  if (cfg.altDa && cfg.altDa.daCommitmentType !== undefined) {
    const t = cfg.altDa.daCommitmentType;
    if (t !== 'KeccakCommitment' && t !== 'GenericCommitment') {
      fail(`alt_da.da_commitment_type must be KeccakCommitment or GenericCommitment, got ${JSON.stringify(t)}`);
    }
  }
  // Each fork needs its predecessor scheduled, at or before it (interop is experimental and only ordered).
  for (let i = 1; i < OP_UPGRADES.length; i++) {
    const prev = OP_UPGRADES[i - 1] as OpUpgrade;
    const fork = OP_UPGRADES[i] as OpUpgrade;
    const a = cfg.forks[prev];
    const b = cfg.forks[fork];
    if (b === undefined) continue;
    if (a === undefined) {
      if (fork === 'interop') continue;
      fail(`fork ${fork} is set (to ${b}) but the prior fork ${prev} is missing`);
    }
    if (a > b) fail(`fork ${fork} is set to ${b}, but the prior fork ${prev} activates later, at ${a}`);
  }
}

/** Fork-time overrides (--override.<fork>); only the given ones apply. The result is checked again. */
export interface ForkOverrides {
  readonly canyon?: number;
  readonly delta?: number;
  readonly ecotone?: number;
  readonly fjord?: number;
  readonly granite?: number;
  readonly holocene?: number;
  readonly isthmus?: number;
  readonly jovian?: number;
  readonly interop?: number;
  readonly pectrablobschedule?: number;
}

export function applyOverrides(cfg: RollupConfig, overrides: ForkOverrides): RollupConfig {
  const forks: Partial<Record<OpUpgrade, number>> = { ...cfg.forks };
  for (const f of OP_UPGRADES) {
    const t = (overrides as Partial<Record<string, number>>)[f];
    if (t !== undefined) forks[f] = uint(t, `--override.${f}`);
  }
  const out: RollupConfig = {
    ...cfg,
    forks,
    ...(overrides.pectrablobschedule === undefined
      ? {}
      : { pectraBlobScheduleTime: uint(overrides.pectrablobschedule, '--override.pectrablobschedule') }),
  };
  checkRollupConfig(out);
  return out;
}

// ---- fork predicates (op-node: active iff the time is set and timestamp >= time) ----

export function isForkActive(cfg: RollupConfig, fork: OpUpgrade, timestamp: number): boolean {
  const at = cfg.forks[fork];
  return at !== undefined && timestamp >= at;
}

/** The first L2 block at or after the fork; a fork active at genesis has no activation block. */
export function isActivationBlock(cfg: RollupConfig, fork: OpUpgrade, l2BlockTime: number): boolean {
  return (
    isForkActive(cfg, fork, l2BlockTime) &&
    l2BlockTime >= cfg.blockTime &&
    !isForkActive(cfg, fork, l2BlockTime - cfg.blockTime)
  );
}

export const isRegolith = (c: RollupConfig, t: number) => isForkActive(c, 'regolith', t);
export const isCanyon = (c: RollupConfig, t: number) => isForkActive(c, 'canyon', t);
export const isDelta = (c: RollupConfig, t: number) => isForkActive(c, 'delta', t);
export const isEcotone = (c: RollupConfig, t: number) => isForkActive(c, 'ecotone', t);
export const isFjord = (c: RollupConfig, t: number) => isForkActive(c, 'fjord', t);
export const isGranite = (c: RollupConfig, t: number) => isForkActive(c, 'granite', t);
export const isHolocene = (c: RollupConfig, t: number) => isForkActive(c, 'holocene', t);
export const isIsthmus = (c: RollupConfig, t: number) => isForkActive(c, 'isthmus', t);
export const isJovian = (c: RollupConfig, t: number) => isForkActive(c, 'jovian', t);
export const isInterop = (c: RollupConfig, t: number) => isForkActive(c, 'interop', t);

export const isJovianActivationBlock = (c: RollupConfig, t: number) => isActivationBlock(c, 'jovian', t);
export const isInteropActivationBlock = (c: RollupConfig, t: number) => isActivationBlock(c, 'interop', t);

/** Pectra blob schedule fix: active while the L1 origin time is before pectra_blob_schedule_time. */
export function isPectraBlobScheduleActive(cfg: RollupConfig, l1Time: number): boolean {
  return cfg.pectraBlobScheduleTime !== undefined && l1Time < cfg.pectraBlobScheduleTime;
}

// ---- per-fork protocol parameters (op-node's ChainSpec); `l1Time` is the L1 origin timestamp ----

export function maxRlpBytesPerChannel(cfg: RollupConfig, l1Time: number): number {
  return isFjord(cfg, l1Time) ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
}

export function maxChannelBankSize(cfg: RollupConfig, l1Time: number): number {
  return isFjord(cfg, l1Time) ? MAX_CHANNEL_BANK_SIZE_FJORD : MAX_CHANNEL_BANK_SIZE_BEDROCK;
}

export function channelTimeout(cfg: RollupConfig, l1Time: number): number {
  return isGranite(cfg, l1Time) ? cfg.channelTimeoutGranite : cfg.channelTimeout;
}

export function maxSequencerDrift(cfg: RollupConfig, l1Time: number): number {
  return isFjord(cfg, l1Time) ? MAX_SEQUENCER_DRIFT_FJORD : cfg.maxSequencerDrift;
}

// ---- op-node's JSON form (optimism_rollupConfig, dumps) ----

const num = (n: bigint) => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString());

export function rollupConfigToJson(cfg: RollupConfig): Record<string, unknown> {
  const sc = cfg.genesis.systemConfig;
  const out: Record<string, unknown> = {
    genesis: {
      l1: { hash: cfg.genesis.l1.hash, number: cfg.genesis.l1.number },
      l2: { hash: cfg.genesis.l2.hash, number: cfg.genesis.l2.number },
      l2_time: cfg.genesis.l2Time,
      system_config: {
        batcherAddr: sc.batcherAddr,
        overhead: sc.overhead,
        scalar: sc.scalar,
        gasLimit: num(sc.gasLimit),
        ...(sc.eip1559Params === undefined ? {} : { eip1559Params: sc.eip1559Params }),
        ...(sc.operatorFeeParams === undefined ? {} : { operatorFeeParams: sc.operatorFeeParams }),
        ...(sc.minBaseFee === undefined ? {} : { minBaseFee: num(sc.minBaseFee) }),
        ...(sc.daFootprintGasScalar === undefined ? {} : { daFootprintGasScalar: sc.daFootprintGasScalar }),
      },
    },
    block_time: cfg.blockTime,
    max_sequencer_drift: cfg.maxSequencerDrift,
    seq_window_size: cfg.seqWindowSize,
    channel_timeout: cfg.channelTimeout,
    l1_chain_id: num(cfg.l1ChainId),
    l2_chain_id: num(cfg.l2ChainId),
  };
  for (const f of OP_UPGRADES) if (cfg.forks[f] !== undefined) out[`${f}_time`] = cfg.forks[f];
  if (cfg.pectraBlobScheduleTime !== undefined) out.pectra_blob_schedule_time = cfg.pectraBlobScheduleTime;
  out.batch_inbox_address = cfg.batchInboxAddress;
  out.deposit_contract_address = cfg.depositContractAddress;
  out.l1_system_config_address = cfg.l1SystemConfigAddress;
  if (cfg.protocolVersionsAddress !== undefined) out.protocol_versions_address = cfg.protocolVersionsAddress;
  if (cfg.superchainConfigAddress !== undefined) out.superchain_config_address = cfg.superchainConfigAddress;
  if (cfg.daChallengeContractAddress !== undefined) {
    out.da_challenge_contract_address = cfg.daChallengeContractAddress;
  }
  if (cfg.altDa) {
    const a = cfg.altDa;
    out.alt_da = {
      ...(a.daChallengeContractAddress === undefined
        ? {}
        : { da_challenge_contract_address: a.daChallengeContractAddress }),
      da_commitment_type: a.daCommitmentType ?? '',
      da_challenge_window: a.daChallengeWindow ?? 0,
      da_resolve_window: a.daResolveWindow ?? 0,
    };
  }
  if (cfg.chainOpConfig) {
    const o = cfg.chainOpConfig;
    out.chain_op_config = {
      eip1559Elasticity: num(o.eip1559Elasticity),
      eip1559Denominator: num(o.eip1559Denominator),
      ...(o.eip1559DenominatorCanyon === undefined
        ? {}
        : { eip1559DenominatorCanyon: num(o.eip1559DenominatorCanyon) }),
    };
  }
  return out;
}
