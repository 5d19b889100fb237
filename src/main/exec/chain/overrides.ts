// Fork overrides (--override.*) applied to a chain configuration, and the compatibility check between the stored
// configuration and the one the node is about to run with (op-geth's ChainOverrides.apply and
// ChainConfig.CheckCompatible). Pure: the caller reads and writes the database.
import { TernError } from '../../common/errors.js';
import { type ChainConfig, parseChainConfig } from '../../primitives/chainConfig.js';

/** The --override.<fork> flags, in the order op-geth applies them (later ones win where they share a field). */
export const OVERRIDE_FORKS = [
  'cancun',
  'verkle',
  'osaka',
  'canyon',
  'ecotone',
  'fjord',
  'granite',
  'holocene',
  'isthmus',
  'jovian',
  'interop',
] as const;

export type OverrideFork = (typeof OVERRIDE_FORKS)[number];

/** Timestamps to force; an absent fork keeps the configured activation (op-geth's nil override). */
export type ChainOverrides = Partial<Record<OverrideFork, bigint>>;

/** The config fields each override sets: OP forks move their L1 counterpart with them, as op-geth does. */
const FIELDS: Readonly<Record<OverrideFork, readonly string[]>> = {
  cancun: ['cancunTime'],
  verkle: ['verkleTime'],
  osaka: ['osakaTime'],
  canyon: ['canyonTime', 'shanghaiTime'],
  ecotone: ['ecotoneTime', 'cancunTime'],
  fjord: ['fjordTime'],
  granite: ['graniteTime'],
  holocene: ['holoceneTime'],
  isthmus: ['isthmusTime', 'pragueTime'],
  jovian: ['jovianTime'],
  interop: ['interopTime'],
};

/** op-geth's default Canyon EIP-1559 denominator, filled in when Canyon is overridden on a config without one. */
const DEFAULT_DENOMINATOR_CANYON = 250;

export function hasOverrides(o: ChainOverrides): boolean {
  return OVERRIDE_FORKS.some((f) => o[f] !== undefined);
}

/**
 * The config with the overrides applied (on `base`, the superchain registry's config when that replaces the stored
 * one). Throws CHAIN_CONFIG when the result activates forks out of order.
 */
export function applyOverrides(base: ChainConfig, o: ChainOverrides): ChainConfig {
  if (!hasOverrides(o)) return base;
  const raw: Record<string, unknown> = structuredClone({ ...base.raw });
  for (const fork of OVERRIDE_FORKS) {
    const at = o[fork];
    if (at === undefined) continue;
    // JSON numbers, as genesis files carry them (timestamps stay far below 2^53).
    for (const field of FIELDS[fork]) raw[field] = Number(at);
    if (fork === 'canyon' && raw.optimism !== null && typeof raw.optimism === 'object') {
      const op = raw.optimism as Record<string, unknown>;
      if (
        op.eip1559DenominatorCanyon === undefined ||
        op.eip1559DenominatorCanyon === null ||
        op.eip1559DenominatorCanyon === 0
      )
        op.eip1559DenominatorCanyon = DEFAULT_DENOMINATOR_CANYON;
    }
  }
  return parseChainConfig(raw);
}

/** op-geth's ConfigCompatError: the first fork whose activation differs at or below the head. */
export interface ConfigCompatError {
  what: string;
  kind: 'block' | 'timestamp';
  stored: bigint | undefined;
  next: bigint | undefined;
  /** The block number (kind block) or timestamp (kind timestamp) the chain would have to rewind to. */
  rewindTo: bigint;
  message: string;
}

type Check = { kind: 'block'; what: string; key: string } | { kind: 'timestamp'; what: string; key: string };

const b = (what: string, key: string): Check => ({ kind: 'block', what: `${what} fork block`, key });
const t = (what: string, key: string): Check => ({ kind: 'timestamp', what: `${what} fork timestamp`, key });

/** geth's checkCompatible order (op-geth's OP forks after Verkle). */
const CHECKS: readonly Check[] = [
  b('Homestead', 'homesteadBlock'),
  b('DAO', 'daoForkBlock'),
  b('EIP150', 'eip150Block'),
  b('EIP155', 'eip155Block'),
  b('EIP158', 'eip158Block'),
  b('Byzantium', 'byzantiumBlock'),
  b('Constantinople', 'constantinopleBlock'),
  b('Petersburg', 'petersburgBlock'),
  b('Istanbul', 'istanbulBlock'),
  b('Muir Glacier', 'muirGlacierBlock'),
  b('Berlin', 'berlinBlock'),
  b('London', 'londonBlock'),
  b('Arrow Glacier', 'arrowGlacierBlock'),
  b('Gray Glacier', 'grayGlacierBlock'),
  b('Merge netsplit', 'mergeNetsplitBlock'),
  t('Shanghai', 'shanghaiTime'),
  t('Cancun', 'cancunTime'),
  t('Prague', 'pragueTime'),
  t('Osaka', 'osakaTime'),
  t('Verkle', 'verkleTime'),
  b('Bedrock', 'bedrockBlock'),
  t('Regolith', 'regolithTime'),
  t('Canyon', 'canyonTime'),
  t('Ecotone', 'ecotoneTime'),
  t('Fjord', 'fjordTime'),
  t('Granite', 'graniteTime'),
  t('Holocene', 'holoceneTime'),
  t('Isthmus', 'isthmusTime'),
  t('Jovian', 'jovianTime'),
  t('Interop', 'interopTime'),
];

function forkAt(c: ChainConfig, key: string): bigint | undefined {
  const v =
    (c.blocks as Record<string, bigint | undefined>)[key] ?? (c.times as Record<string, bigint | undefined>)[key];
  return v;
}

const fmt = (v: bigint | undefined) => (v === undefined ? 'nil' : v.toString());

function compatError(check: Check, stored: bigint | undefined, next: bigint | undefined): ConfigCompatError {
  // Rewind to just before the earlier of the two activations (geth's newBlockCompatError / newTimestampCompatError).
  const rew = stored === undefined ? next : next === undefined || stored < next ? stored : next;
  const rewindTo = rew !== undefined && rew > 0n ? rew - 1n : 0n;
  const message =
    check.kind === 'block'
      ? `mismatching ${check.what} in database (have block ${fmt(stored)}, want block ${fmt(next)}, rewindto block ${rewindTo})`
      : `mismatching ${check.what} in database (have timestamp ${fmt(stored)}, want timestamp ${fmt(next)}, rewindto timestamp ${rewindTo})`;
  return { what: check.what, kind: check.kind, stored, next, rewindTo, message };
}

function firstIncompatible(
  stored: ChainConfig,
  next: ChainConfig,
  headNumber: bigint,
  headTime: bigint,
  genesisTime: bigint | undefined,
): ConfigCompatError | undefined {
  for (const check of CHECKS) {
    const s = forkAt(stored, check.key);
    const n = forkAt(next, check.key);
    if (s === n) continue;
    if (check.kind === 'block') {
      if ((s !== undefined && s <= headNumber) || (n !== undefined && n <= headNumber)) return compatError(check, s, n);
    } else {
      // op-geth: activations before the genesis timestamp (a migrated chain's history) are not compared.
      const preGenesis = (v: bigint | undefined) => genesisTime !== undefined && v !== undefined && v < genesisTime;
      if (preGenesis(s) || preGenesis(n)) continue;
      if ((s !== undefined && s <= headTime) || (n !== undefined && n <= headTime)) return compatError(check, s, n);
    }
  }
  return undefined;
}

/**
 * geth's CheckCompatible: the lowest conflict between the stored config and the new one for a chain whose head is
 * at `headNumber`/`headTime` (iterated as geth does, lowering the head to each conflict's rewind point).
 */
export function checkCompatible(
  stored: ChainConfig,
  next: ChainConfig,
  head: { number: bigint; time: bigint },
  genesisTime?: bigint,
): ConfigCompatError | undefined {
  let number = head.number;
  let time = head.time;
  let last: ConfigCompatError | undefined;
  for (;;) {
    const err = firstIncompatible(stored, next, number, time, genesisTime);
    if (err === undefined || (last !== undefined && err.kind === last.kind && err.rewindTo === last.rewindTo)) break;
    last = err;
    if (err.kind === 'timestamp') time = err.rewindTo;
    else number = err.rewindTo;
  }
  return last;
}

/**
 * Refuses a config change that would alter blocks already imported past genesis (op-geth rewinds the chain
 * instead; tern keeps history and asks the operator to choose).
 */
export function assertCompatible(
  stored: ChainConfig,
  next: ChainConfig,
  head: { number: bigint; time: bigint },
  genesisTime?: bigint,
): void {
  const err = checkCompatible(stored, next, head, genesisTime);
  if (err === undefined || head.number === 0n) return;
  throw new TernError(
    'CHAIN_CONFIG_INCOMPATIBLE',
    `${err.message}: the new configuration would change blocks already imported (head ${head.number}); ` +
      'remove the override or start from a fresh --datadir',
  );
}
