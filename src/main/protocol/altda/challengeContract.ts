// The DataAvailabilityChallenge contract's ABI pieces derivation and the devnet use, encoded and decoded by hand
// (a few static words and dynamic `bytes`):
//   event ChallengeStatusChanged(uint256 indexed challengedBlockNumber, bytes challengedCommitment, uint8 status)
//   resolve(uint256 challengedBlockNumber, bytes challengedCommitment, bytes resolveData)
//   challenge(uint256 challengedBlockNumber, bytes challengedCommitment)   (payable, bond from deposit())

import { keccak256 } from '../../native/keccak.js';
import { TernError } from '../../primitives/errors.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const selector = (sig: string) => keccak256(utf8(sig)).subarray(0, 4);

export const CHALLENGE_STATUS_CHANGED_TOPIC = keccak256(utf8('ChallengeStatusChanged(uint256,bytes,uint8)'));
export const RESOLVE_SELECTOR = selector('resolve(uint256,bytes,bytes)');

/** The contract's ChallengeStatus enum. */
export const ChallengeStatus = { Uninitialized: 0, Active: 1, Resolved: 2, Expired: 3 } as const;

function bad(what: string): never {
  throw new TernError('ALTDA_ABI_INVALID', `malformed ${what}`);
}

function word(b: Uint8Array, at: number, what: string): bigint {
  if (at + 32 > b.length) bad(what);
  return BigInt(`0x${Buffer.from(b.subarray(at, at + 32)).toString('hex')}`);
}

/** A `bytes` argument whose offset word is at `head` (relative to `base`). */
function dynBytes(b: Uint8Array, base: number, head: number, what: string): Uint8Array {
  const off = word(b, base + head, what);
  if (off > BigInt(b.length)) bad(what);
  const start = base + Number(off);
  const len = word(b, start, what);
  if (BigInt(start + 32) + len > BigInt(b.length)) bad(what);
  return b.subarray(start + 32, start + 32 + Number(len));
}

const safeNumber = (v: bigint, what: string): number => (v > BigInt(Number.MAX_SAFE_INTEGER) ? bad(what) : Number(v));

export interface ChallengeStatusEvent {
  challengedBlockNumber: number;
  challengedCommitment: Uint8Array;
  status: number;
}

export function decodeChallengeStatusChanged(topics: readonly Uint8Array[], data: Uint8Array): ChallengeStatusEvent {
  const what = 'ChallengeStatusChanged event';
  if (topics.length !== 2) bad(what);
  const status = word(data, 32, what);
  if (status > 255n) bad(what);
  return {
    challengedBlockNumber: safeNumber(word(topics[1] as Uint8Array, 0, what), what),
    challengedCommitment: Uint8Array.from(dynBytes(data, 0, 0, what)),
    status: Number(status),
  };
}

/** The resolveData argument of a resolve() call's calldata. */
export function decodeResolveData(calldata: Uint8Array): Uint8Array {
  const what = 'resolve() calldata';
  if (calldata.length < 4 || !Buffer.from(calldata.subarray(0, 4)).equals(Buffer.from(RESOLVE_SELECTOR))) bad(what);
  const rd = dynBytes(calldata, 4, 64, what);
  if (rd.length === 0) bad(`${what}: empty resolve data`);
  return Uint8Array.from(rd);
}

function uintWord(v: bigint | number): Uint8Array {
  return Uint8Array.from(Buffer.from(BigInt(v).toString(16).padStart(64, '0'), 'hex'));
}

function padded(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32 + Math.ceil(b.length / 32) * 32);
  out.set(uintWord(b.length), 0);
  out.set(b, 32);
  return out;
}

/** ABI-encodes static words and `bytes` arguments (in order) behind a selector. */
export function encodeCall(sel: Uint8Array, args: ReadonlyArray<bigint | number | Uint8Array>): Uint8Array {
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let tailOffset = args.length * 32;
  for (const a of args) {
    if (a instanceof Uint8Array) {
      heads.push(uintWord(tailOffset));
      const t = padded(a);
      tails.push(t);
      tailOffset += t.length;
    } else heads.push(uintWord(a));
  }
  return Uint8Array.from(Buffer.concat([sel, ...heads, ...tails]));
}

/** The event's data part, as the contract emits it (tests and fakes). */
export function encodeChallengeStatusData(commitment: Uint8Array, status: number): Uint8Array {
  return encodeCall(new Uint8Array(), [commitment, status]);
}

export function challengeStatusTopics(challengedBlockNumber: number): Uint8Array[] {
  return [CHALLENGE_STATUS_CHANGED_TOPIC, uintWord(challengedBlockNumber)];
}
