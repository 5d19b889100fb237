// The chain configuration in geth's genesis format (`config` of genesis.json): fork activation by block number
// (up to the merge) and by timestamp (Shanghai on), OP-Stack forks, and the blob schedule. Pure data + rules.
import { TernError } from './errors.js';

export interface BlobParams {
  readonly target: number;
  readonly max: number;
  readonly baseFeeUpdateFraction: bigint;
}

export interface OptimismParams {
  readonly eip1559Elasticity: bigint;
  readonly eip1559Denominator: bigint;
  readonly eip1559DenominatorCanyon?: bigint;
}

/** geth's block-numbered fork fields, in activation order (bedrockBlock is op-geth's). */
export const BLOCK_FORKS = [
  'homesteadBlock',
  'daoForkBlock',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
  'berlinBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeNetsplitBlock',
  'bedrockBlock',
] as const;

/** The block forks a post-merge chain activates at genesis (geth's dev and OP genesis files: no DAO fork). */
export const GENESIS_BLOCK_FORKS = BLOCK_FORKS.filter((f) => f !== 'daoForkBlock' && f !== 'bedrockBlock');

/** geth's and OP's timestamp fork fields tern runs, in activation order. */
export const TIME_FORKS = [
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'verkleTime',
  'regolithTime',
  'canyonTime',
  'ecotoneTime',
  'fjordTime',
  'graniteTime',
  'holoceneTime',
  'isthmusTime',
  'jovianTime',
  'interopTime',
] as const;

export type BlockFork = (typeof BLOCK_FORKS)[number];
export type TimeFork = (typeof TIME_FORKS)[number];

export interface ChainConfig {
  readonly chainId: bigint;
  readonly blocks: Partial<Record<BlockFork, bigint>>;
  readonly times: Partial<Record<TimeFork, bigint>>;
  readonly terminalTotalDifficulty?: bigint;
  readonly blobSchedule: Readonly<Record<string, BlobParams>>;
  readonly optimism?: OptimismParams;
  readonly depositContractAddress?: string;
  /** The JSON object as given, kept for eth_config-like reporting and for writing back to the database. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Cancun's and Prague's blob parameters (EIP-4844, EIP-7691), used when the config has no blobSchedule. */
export const DEFAULT_BLOB_SCHEDULE: Readonly<Record<string, BlobParams>> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477n },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716n },
};

function toBigint(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return BigInt(v);
  throw new TernError('CHAIN_CONFIG', `chain config: ${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
}

/** Parses geth's `config` object; unknown keys are kept in `raw` and otherwise ignored, as geth does. */
export function parseChainConfig(json: unknown): ChainConfig {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new TernError('CHAIN_CONFIG', 'chain config must be a JSON object');
  }
  const raw = json as Record<string, unknown>;
  if (raw.chainId === undefined) throw new TernError('CHAIN_CONFIG', 'chain config has no chainId');
  const blocks: Partial<Record<BlockFork, bigint>> = {};
  for (const f of BLOCK_FORKS) if (raw[f] !== undefined && raw[f] !== null) blocks[f] = toBigint(raw[f], f);
  const times: Partial<Record<TimeFork, bigint>> = {};
  for (const f of TIME_FORKS) if (raw[f] !== undefined && raw[f] !== null) times[f] = toBigint(raw[f], f);
  checkOrder(blocks, times);
  const blobSchedule: Record<string, BlobParams> = { ...DEFAULT_BLOB_SCHEDULE };
  const schedule = raw.blobSchedule as Record<string, Record<string, unknown>> | undefined;
  if (schedule && typeof schedule === 'object') {
    for (const [fork, p] of Object.entries(schedule)) {
      blobSchedule[fork] = {
        target: Number(toBigint(p.target, `blobSchedule.${fork}.target`)),
        max: Number(toBigint(p.max, `blobSchedule.${fork}.max`)),
        baseFeeUpdateFraction: toBigint(p.baseFeeUpdateFraction, `blobSchedule.${fork}.baseFeeUpdateFraction`),
      };
    }
  }
  const op = raw.optimism as Record<string, unknown> | undefined;
  const config: ChainConfig = {
    chainId: toBigint(raw.chainId, 'chainId'),
    blocks,
    times,
    blobSchedule,
    raw,
    ...(raw.terminalTotalDifficulty !== undefined && raw.terminalTotalDifficulty !== null
      ? { terminalTotalDifficulty: toBigint(raw.terminalTotalDifficulty, 'terminalTotalDifficulty') }
      : {}),
    ...(op && typeof op === 'object'
      ? {
          optimism: {
            eip1559Elasticity: toBigint(op.eip1559Elasticity, 'optimism.eip1559Elasticity'),
            eip1559Denominator: toBigint(op.eip1559Denominator, 'optimism.eip1559Denominator'),
            ...(op.eip1559DenominatorCanyon !== undefined && op.eip1559DenominatorCanyon !== null
              ? { eip1559DenominatorCanyon: toBigint(op.eip1559DenominatorCanyon, 'optimism.eip1559DenominatorCanyon') }
              : {}),
          },
        }
      : {}),
    ...(typeof raw.depositContractAddress === 'string' ? { depositContractAddress: raw.depositContractAddress } : {}),
  };
  return config;
}

/** Forks must activate in order (a later fork never before an earlier one), as geth's CheckConfigForkOrder. */
function checkOrder(blocks: Partial<Record<BlockFork, bigint>>, times: Partial<Record<TimeFork, bigint>>): void {
  const seq: Array<[string, bigint | undefined]> = [
    ...(
      [
        'homesteadBlock',
        'eip150Block',
        'eip155Block',
        'eip158Block',
        'byzantiumBlock',
        'constantinopleBlock',
        'petersburgBlock',
        'istanbulBlock',
        'berlinBlock',
        'londonBlock',
      ] as const
    ).map((f): [string, bigint | undefined] => [f, blocks[f]]),
  ];
  let last: [string, bigint] | undefined;
  for (const [name, at] of seq) {
    if (at === undefined) continue;
    if (last && at < last[1]) {
      throw new TernError('CHAIN_CONFIG', `chain config: ${name} (${at}) activates before ${last[0]} (${last[1]})`);
    }
    last = [name, at];
  }
  let lastTime: [string, bigint] | undefined;
  for (const name of ['shanghaiTime', 'cancunTime', 'pragueTime', 'osakaTime'] as const) {
    const at = times[name];
    if (at === undefined) continue;
    if (lastTime && at < lastTime[1]) {
      throw new TernError(
        'CHAIN_CONFIG',
        `chain config: ${name} (${at}) activates before ${lastTime[0]} (${lastTime[1]})`,
      );
    }
    lastTime = [name, at];
  }
}

export function isBlockForkActive(c: ChainConfig, fork: BlockFork, number: bigint): boolean {
  const at = c.blocks[fork];
  return at !== undefined && number >= at;
}

export function isTimeForkActive(c: ChainConfig, fork: TimeFork, time: bigint): boolean {
  const at = c.times[fork];
  return at !== undefined && time >= at;
}

/** The Ethereum hardfork in force at a block, by @ethereumjs/common's names (which the EVM is configured with). */
export function hardforkAt(c: ChainConfig, number: bigint, time: bigint): string {
  const t = (f: TimeFork) => isTimeForkActive(c, f, time);
  const b = (f: BlockFork) => isBlockForkActive(c, f, number);
  if (t('osakaTime')) return 'osaka';
  if (t('pragueTime')) return 'prague';
  if (t('cancunTime')) return 'cancun';
  if (t('shanghaiTime')) return 'shanghai';
  if (
    c.terminalTotalDifficulty !== undefined &&
    b('londonBlock') &&
    (c.terminalTotalDifficulty === 0n || b('mergeNetsplitBlock'))
  ) {
    return 'paris';
  }
  if (b('grayGlacierBlock')) return 'grayGlacier';
  if (b('arrowGlacierBlock')) return 'arrowGlacier';
  if (b('londonBlock')) return 'london';
  if (b('berlinBlock')) return 'berlin';
  if (b('muirGlacierBlock')) return 'muirGlacier';
  if (b('istanbulBlock')) return 'istanbul';
  if (b('petersburgBlock')) return 'petersburg';
  if (b('constantinopleBlock')) return 'constantinople';
  if (b('byzantiumBlock')) return 'byzantium';
  if (b('eip158Block')) return 'spuriousDragon';
  if (b('eip150Block')) return 'tangerineWhistle';
  if (b('homesteadBlock')) return 'homestead';
  return 'chainstart';
}

/** The blob parameters in force at a timestamp (the newest scheduled fork that is active). */
export function blobParamsAt(c: ChainConfig, time: bigint): BlobParams | undefined {
  const order: Array<[TimeFork, string]> = [
    ['osakaTime', 'osaka'],
    ['pragueTime', 'prague'],
    ['cancunTime', 'cancun'],
  ];
  for (const [fork, name] of order) {
    if (isTimeForkActive(c, fork, time)) return c.blobSchedule[name] ?? c.blobSchedule.cancun;
  }
  return undefined;
}

export function isOptimism(c: ChainConfig): boolean {
  return c.optimism !== undefined;
}
