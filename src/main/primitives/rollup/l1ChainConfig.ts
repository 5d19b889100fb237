// The L1 fork schedule derivation needs (--rollup.l1-chain-config): when Cancun, Prague, Osaka and the blob-parameter-
// only forks activate on L1 and their blob parameters, which fix the blob base fee written into the L1-info deposit.
// The file is either a geth genesis (chain config under `.config`) or a bare chain config; the public L1s are built
// in (networks/l1ChainConfig.ts, the same configs tern-exec's --mainnet ... run), and their file is ignored, as
// op-node does.
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
/** geth's defaults, used for a fork whose blobSchedule entry is missing (Cancun/Prague/Osaka only). */
const DEFAULT_SCHEDULE: Partial<Record<L1BlobFork, BlobParams>> = { cancun: CANCUN, prague: PRAGUE, osaka: PRAGUE };

export function failL1ChainConfig(message: string): never {
  throw new TernError('L1_CHAIN_CONFIG', `L1 chain config: ${message}`, { severity: 'critical' });
}

function uint(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return failL1ChainConfig(`${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Parses either shape: `{config: {...}, alloc: ...}` (geth genesis) or the chain config object itself. */
export function parseL1ChainConfig(json: unknown): L1ChainConfig {
  if (!isObj(json)) failL1ChainConfig('must be a JSON object');
  const raw = isObj(json.config) ? json.config : json;
  if (raw.chainId === undefined || raw.chainId === null) {
    failL1ChainConfig(
      'has no chainId (expected a chain config, or a genesis file with the chain config under "config")',
    );
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
    if (last && t < last[1]) failL1ChainConfig(`${f}Time (${t}) is before ${last[0]}Time (${last[1]})`);
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
      if (d === undefined) failL1ChainConfig(`${f}Time is set but blobSchedule.${f} is missing`);
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
