// The L1 fork schedule derivation needs (--rollup.l1-chain-config): when Cancun, Prague, Osaka and the blob-parameter-
// only forks activate on L1 and their blob parameters, which fix the blob base fee written into the L1-info deposit.
// The file is either a geth genesis (chain config under `.config`) or a bare chain config; mainnet and Sepolia are
// built in, and their file is ignored, as op-node does.
import { TernError } from '../errors.js';
import { isPectraBlobScheduleActive, type RollupConfig } from './config.js';

export interface BlobParams {
  readonly target: number;
  readonly max: number;
  readonly baseFeeUpdateFraction: bigint;
}

/** L1 forks that change blob parameters, in activation order; the name is also the blobSchedule key. */
export const L1_BLOB_FORKS = ['cancun', 'prague', 'osaka', 'bpo1', 'bpo2', 'bpo3', 'bpo4', 'bpo5'] as const;
export type L1BlobFork = (typeof L1_BLOB_FORKS)[number];

export interface L1ChainConfig {
  readonly chainId: bigint;
  /** Activation timestamps by fork; absent forks never activate. */
  readonly times: Readonly<Partial<Record<L1BlobFork, number>>>;
  readonly blobSchedule: Readonly<Partial<Record<L1BlobFork, BlobParams>>>;
}

const CANCUN: BlobParams = { target: 3, max: 6, baseFeeUpdateFraction: 3338477n };
const PRAGUE: BlobParams = { target: 6, max: 9, baseFeeUpdateFraction: 5007716n };
const BPO1: BlobParams = { target: 10, max: 15, baseFeeUpdateFraction: 8346193n };
const BPO2: BlobParams = { target: 14, max: 21, baseFeeUpdateFraction: 11684671n };

/** geth's defaults, used for a fork whose blobSchedule entry is missing (Cancun/Prague/Osaka only). */
const DEFAULT_SCHEDULE: Partial<Record<L1BlobFork, BlobParams>> = { cancun: CANCUN, prague: PRAGUE, osaka: PRAGUE };

const SCHEDULE = { cancun: CANCUN, prague: PRAGUE, osaka: PRAGUE, bpo1: BPO1, bpo2: BPO2 };

/** Values from geth's params/config.go (MainnetChainConfig, SepoliaChainConfig). */
export const MAINNET_L1_CONFIG: L1ChainConfig = {
  chainId: 1n,
  times: { cancun: 1710338135, prague: 1746612311, osaka: 1764798551, bpo1: 1765290071, bpo2: 1767747671 },
  blobSchedule: SCHEDULE,
};

export const SEPOLIA_L1_CONFIG: L1ChainConfig = {
  chainId: 11155111n,
  times: { cancun: 1706655072, prague: 1741159776, osaka: 1760427360, bpo1: 1761017184, bpo2: 1761607008 },
  blobSchedule: SCHEDULE,
};

/** The built-in schedule of a well-known L1, or undefined. */
export function knownL1ChainConfig(chainId: bigint): L1ChainConfig | undefined {
  if (chainId === 1n) return MAINNET_L1_CONFIG;
  if (chainId === 11155111n) return SEPOLIA_L1_CONFIG;
  return undefined;
}

function fail(message: string): never {
  throw new TernError('L1_CHAIN_CONFIG', `L1 chain config: ${message}`, { severity: 'critical' });
}

function uint(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return fail(`${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Parses either shape: `{config: {...}, alloc: ...}` (geth genesis) or the chain config object itself. */
export function parseL1ChainConfig(json: unknown): L1ChainConfig {
  if (!isObj(json)) fail('must be a JSON object');
  const raw = isObj(json.config) ? json.config : json;
  if (raw.chainId === undefined || raw.chainId === null) {
    fail('has no chainId (expected a chain config, or a genesis file with the chain config under "config")');
  }
  const chainId = BigInt(uint(raw.chainId, 'chainId'));
  const times: Partial<Record<L1BlobFork, number>> = {};
  for (const f of L1_BLOB_FORKS) {
    const v = raw[`${f}Time`];
    if (v !== undefined && v !== null) times[f] = uint(v, `${f}Time`);
  }
  let last: [L1BlobFork, number] | undefined;
  for (const f of L1_BLOB_FORKS) {
    const t = times[f];
    if (t === undefined) continue;
    if (last && t < last[1]) fail(`${f}Time (${t}) is before ${last[0]}Time (${last[1]})`);
    last = [f, t];
  }
  const blobSchedule: Partial<Record<L1BlobFork, BlobParams>> = {};
  const sched = isObj(raw.blobSchedule) ? raw.blobSchedule : {};
  for (const f of L1_BLOB_FORKS) {
    const p = sched[f];
    if (isObj(p)) {
      blobSchedule[f] = {
        target: uint(p.target, `blobSchedule.${f}.target`),
        max: uint(p.max, `blobSchedule.${f}.max`),
        baseFeeUpdateFraction: BigInt(uint(p.baseFeeUpdateFraction, `blobSchedule.${f}.baseFeeUpdateFraction`)),
      };
    } else if (times[f] !== undefined) {
      const d = DEFAULT_SCHEDULE[f];
      if (d === undefined) fail(`${f}Time is set but blobSchedule.${f} is missing`);
      blobSchedule[f] = d;
    }
  }
  return { chainId, times, blobSchedule };
}

/** The L1 fork with blob parameters in force at an L1 timestamp (the newest active one), if any. */
export function activeBlobFork(cfg: L1ChainConfig, l1Time: number): L1BlobFork | undefined {
  for (let i = L1_BLOB_FORKS.length - 1; i >= 0; i--) {
    const f = L1_BLOB_FORKS[i] as L1BlobFork;
    const t = cfg.times[f];
    if (t !== undefined && l1Time >= t) return f;
  }
  return undefined;
}

export function blobParamsAt(cfg: L1ChainConfig, l1Time: number): BlobParams | undefined {
  const f = activeBlobFork(cfg, l1Time);
  return f === undefined ? undefined : (cfg.blobSchedule[f] ?? DEFAULT_SCHEDULE[f]);
}

/**
 * The blob base fee update fraction for the L1-info deposit of an L1 origin: the L1 schedule's, except that while the
 * rollup's Pectra blob schedule fix is pending, Prague (and later) L1 blocks are priced with Cancun's fraction.
 * Undefined before Cancun (no blob fee).
 */
export function blobBaseFeeUpdateFraction(l1: L1ChainConfig, rollup: RollupConfig, l1Time: number): bigint | undefined {
  const params = blobParamsAt(l1, l1Time);
  if (params === undefined) return undefined;
  const prague = l1.times.prague;
  if (prague !== undefined && l1Time >= prague && isPectraBlobScheduleActive(rollup, l1Time)) {
    return (l1.blobSchedule.cancun ?? CANCUN).baseFeeUpdateFraction;
  }
  return params.baseFeeUpdateFraction;
}

/**
 * Picks the L1 schedule: built in for mainnet and Sepolia (a given file is ignored), else the parsed file, whose
 * chain id must match the rollup's l1_chain_id.
 */
export function resolveL1ChainConfig(rollup: RollupConfig, fileJson?: unknown): L1ChainConfig {
  const known = knownL1ChainConfig(rollup.l1ChainId);
  if (known) return known;
  if (fileJson === undefined) {
    throw new TernError(
      'L1_CHAIN_CONFIG',
      `L1 chain ${rollup.l1ChainId} is not a well-known chain: pass its chain config with --rollup.l1-chain-config`,
      { severity: 'critical' },
    );
  }
  const cfg = parseL1ChainConfig(fileJson);
  if (cfg.chainId !== rollup.l1ChainId) {
    fail(`chainId ${cfg.chainId} does not match the rollup config's l1_chain_id ${rollup.l1ChainId}`);
  }
  return cfg;
}
