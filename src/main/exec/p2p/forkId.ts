// EIP-2124 fork identifiers as op-geth computes them (core/forkid): a CRC32 over the genesis hash and every passed
// fork, block forks first, then time forks. op-geth gathers the forks from every `*Block` and `*Time` field of its
// ChainConfig, OP forks included (bedrockBlock, regolithTime... interopTime), sorts and deduplicates each list,
// drops block forks at 0 and time forks at or before the genesis time. The filter applies EIP-2124's four rules.
import { crc32 } from 'node:zlib';
import { BLOCK_FORKS, type ChainConfig, TIME_FORKS } from '../../primitives/chainConfig.js';

/**
 * op-geth's ChainConfig timestamp fork fields that tern does not run but a config may schedule: they count for the
 * fork id all the same (the blob-parameter-only forks, Amsterdam, Karst).
 */
const SCHEDULED_ONLY_TIME_FIELDS = [
  'bpo1Time',
  'bpo2Time',
  'bpo3Time',
  'bpo4Time',
  'bpo5Time',
  'amsterdamTime',
  'karstTime',
] as const;

/** op-geth's ChainConfig time fork fields (JSON names), OP's included. */
const TIME_FIELDS = [...TIME_FORKS, ...SCHEDULED_ONLY_TIME_FIELDS];

const MAX_U64 = (1n << 64n) - 1n;

/** EIP-2124's timestampThreshold (mainnet genesis time): a `next` above it is a timestamp. */
const TIMESTAMP_THRESHOLD = 1438269973n;

export interface ForkId {
  /** CRC32 of the genesis hash and the passed forks, big-endian. */
  hash: Uint8Array;
  /** The next fork (block number or timestamp), 0 when none is known. */
  next: bigint;
}

export interface ForkSchedule {
  byBlock: bigint[];
  byTime: bigint[];
}

function fieldValue(raw: Readonly<Record<string, unknown>>, name: string): bigint | undefined {
  const v = raw[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return BigInt(v);
  return undefined;
}

const sortedUnique = (xs: bigint[]): bigint[] => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** op-geth's gatherForks over the chain config as given (its JSON form). */
export function gatherForks(config: ChainConfig, genesisTime: bigint): ForkSchedule {
  const byBlock = sortedUnique(
    BLOCK_FORKS.map((f) => fieldValue(config.raw, f)).filter((v): v is bigint => v !== undefined),
  ).filter((n) => n !== 0n);
  const byTime = sortedUnique(
    TIME_FIELDS.map((f) => fieldValue(config.raw, f)).filter((v): v is bigint => v !== undefined),
  ).filter((t) => t > genesisTime);
  return { byBlock, byTime };
}

function u64be(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

function u32be(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0);
  return b;
}

/** CRC32(previous input ‖ fork as 8 big-endian bytes), from the running checksum. */
export function checksumUpdate(sum: number, fork: bigint): number {
  return crc32(u64be(fork), sum);
}

/** The fork id of a node whose head is at (`head`, `time`). */
export function forkIdAt(schedule: ForkSchedule, genesisHash: Uint8Array, head: bigint, time: bigint): ForkId {
  let sum = crc32(genesisHash);
  for (const fork of schedule.byBlock) {
    if (fork > head) return { hash: u32be(sum), next: fork };
    sum = checksumUpdate(sum, fork);
  }
  for (const fork of schedule.byTime) {
    if (fork > time) return { hash: u32be(sum), next: fork };
    sum = checksumUpdate(sum, fork);
  }
  return { hash: u32be(sum), next: 0n };
}

export type ForkIdVerdict = 'ok' | 'remote-stale' | 'local-incompatible-or-stale';

/**
 * EIP-2124's validation of a remote fork id against the local chain (op-geth's newFilter): 'remote-stale' and
 * 'local-incompatible-or-stale' reject the peer.
 */
export function createForkFilter(
  schedule: ForkSchedule,
  genesisHash: Uint8Array,
  headFn: () => { number: bigint; time: bigint },
): (id: ForkId) => ForkIdVerdict {
  const forks = [...schedule.byBlock, ...schedule.byTime];
  const sums: number[] = [crc32(genesisHash)];
  for (const fork of forks) sums.push(checksumUpdate(sums[sums.length - 1] as number, fork));
  // Sentries: the last fork is never passed; a purely block-based schedule keeps its sentry in block territory.
  forks.push(MAX_U64);
  const blockCount = schedule.byTime.length === 0 ? schedule.byBlock.length + 1 : schedule.byBlock.length;
  return (id) => {
    if (id.hash.length !== 4) return 'local-incompatible-or-stale';
    const remote = new DataView(id.hash.buffer, id.hash.byteOffset, 4).getUint32(0);
    const { number, time } = headFn();
    for (let i = 0; i < forks.length; i++) {
      const head = i >= blockCount ? time : number;
      if (head >= (forks[i] as bigint)) continue;
      // Rule 1: same fork state; reject if the remote's announced next fork already passed here.
      if (sums[i] === remote) {
        if (id.next > 0n && (head >= id.next || (id.next > TIMESTAMP_THRESHOLD && time >= id.next))) {
          return 'local-incompatible-or-stale';
        }
        return 'ok';
      }
      // Rule 2: the remote is a subset of our past forks and must announce our next one.
      for (let j = 0; j < i; j++) {
        if (sums[j] === remote) return forks[j] === id.next ? 'ok' : 'remote-stale';
      }
      // Rule 3: the remote is a superset (we are syncing).
      for (let j = i + 1; j < sums.length; j++) if (sums[j] === remote) return 'ok';
      return 'local-incompatible-or-stale';
    }
    return 'ok';
  };
}
