// Transaction conditionals (op-geth core/types/transaction_conditional.go, the sequencer's out-of-protocol
// inclusion preconditions for eth_sendRawTransactionConditional): the JSON shape, the cost in storage lookups, the
// sanity checks, and the header and state checks with op-geth's messages.
import {
  type Decoder,
  decodeAddress,
  decodeHash,
  decodeObject,
  decodeQuantity,
  decodeUint64,
  ParamError,
} from '../../common/rpc/params.js';
import { fromHex, toHex as hex } from '../../primitives/bytes.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import type { StateReader } from '../state/interface.js';

/** op-geth params: the inclusive limit on one conditional's cost, and the JSON-RPC codes of its errors. */
export const CONDITIONAL_MAX_COST = 1000;
export const CONDITIONAL_REJECTED_CODE = -32003;
export const CONDITIONAL_COST_EXCEEDED_CODE = -32005;

/** A storage root to match, or slot values to match (op-geth's KnownAccount: exactly one of the two). */
export type KnownAccount = { root: `0x${string}` } | { slots: Map<`0x${string}`, `0x${string}`> };

export interface TransactionConditional {
  /** Address (0x, lower case) → expectation, in the order given. */
  knownAccounts: Map<`0x${string}`, KnownAccount>;
  blockNumberMin?: bigint;
  blockNumberMax?: bigint;
  timestampMin?: bigint;
  timestampMax?: bigint;
}

const HASH_RE = /^0x[0-9a-fA-F]{64}$/;

function decodeKnownAccount(v: unknown): KnownAccount {
  // op-geth tries a hash first, then a slot → value map.
  if (typeof v === 'string') return { root: decodeHash(v).toLowerCase() as `0x${string}` };
  const obj = decodeObject(v);
  const slots = new Map<`0x${string}`, `0x${string}`>();
  for (const [k, val] of Object.entries(obj)) {
    if (!HASH_RE.test(k))
      throw new ParamError(`hex string has length ${k.replace(/^0x/, '').length}, want 64 for common.Hash`);
    slots.set(k.toLowerCase() as `0x${string}`, decodeHash(val).toLowerCase() as `0x${string}`);
  }
  return { slots };
}

/** The conditional argument of eth_sendRawTransactionConditional (gencodec's JSON form). */
export const decodeConditional: Decoder<TransactionConditional> = (v) => {
  const obj = decodeObject(v);
  const knownAccounts = new Map<`0x${string}`, KnownAccount>();
  const ka = obj.knownAccounts;
  if (ka !== undefined && ka !== null) {
    for (const [addr, acct] of Object.entries(decodeObject(ka))) {
      knownAccounts.set(decodeAddress(addr).toLowerCase() as `0x${string}`, decodeKnownAccount(acct));
    }
  }
  const out: TransactionConditional = { knownAccounts };
  const opt = <T>(key: string, d: Decoder<T>): T | undefined =>
    obj[key] === undefined || obj[key] === null ? undefined : d(obj[key]);
  const bnMin = opt('blockNumberMin', decodeQuantity);
  const bnMax = opt('blockNumberMax', decodeQuantity);
  const tsMin = opt('timestampMin', decodeUint64);
  const tsMax = opt('timestampMax', decodeUint64);
  if (bnMin !== undefined) out.blockNumberMin = bnMin;
  if (bnMax !== undefined) out.blockNumberMax = bnMax;
  if (tsMin !== undefined) out.timestampMin = tsMin;
  if (tsMax !== undefined) out.timestampMax = tsMax;
  return out;
};

/** The JSON form, as forwarded to the sequencer. */
export function conditionalToJson(c: TransactionConditional): Record<string, unknown> {
  const knownAccounts: Record<string, unknown> = {};
  for (const [addr, a] of c.knownAccounts) {
    knownAccounts[addr] = 'root' in a ? a.root : Object.fromEntries(a.slots);
  }
  const q = (n: bigint) => `0x${n.toString(16)}`;
  return {
    knownAccounts,
    ...(c.blockNumberMin !== undefined ? { blockNumberMin: q(c.blockNumberMin) } : {}),
    ...(c.blockNumberMax !== undefined ? { blockNumberMax: q(c.blockNumberMax) } : {}),
    ...(c.timestampMin !== undefined ? { timestampMin: q(c.timestampMin) } : {}),
    ...(c.timestampMax !== undefined ? { timestampMax: q(c.timestampMax) } : {}),
  };
}

/** Storage lookups the conditional costs: one per account, plus its root or slots, plus one per bound kind. */
export function conditionalCost(c: TransactionConditional): number {
  let cost = 0;
  for (const a of c.knownAccounts.values()) cost += 1 + ('root' in a ? 1 : a.slots.size);
  if (c.blockNumberMin !== undefined || c.blockNumberMax !== undefined) cost += 1;
  if (c.timestampMin !== undefined || c.timestampMax !== undefined) cost += 1;
  return cost;
}

/** op-geth's Validate: the sanity checks before any state lookup; the error text, or undefined. */
export function validateConditional(c: TransactionConditional): string | undefined {
  if (c.blockNumberMin !== undefined && c.blockNumberMax !== undefined && c.blockNumberMin > c.blockNumberMax)
    return 'block number minimum constraint must be less than the maximum';
  if (c.timestampMin !== undefined && c.timestampMax !== undefined && c.timestampMin > c.timestampMax)
    return 'timestamp minimum constraint must be less than the maximum';
  return undefined;
}

/** op-geth's Header.CheckTransactionConditional (its spelling kept). */
export function checkHeaderConditional(
  c: TransactionConditional,
  number: bigint,
  timestamp: bigint,
): string | undefined {
  if (c.blockNumberMin !== undefined && c.blockNumberMin > number) return 'failed block number minimum constraint';
  if (c.blockNumberMax !== undefined && c.blockNumberMax < number) return 'failed block number maximmum constraint';
  if (c.timestampMin !== undefined && c.timestampMin > timestamp) return 'failed timestamp minimum constraint';
  if (c.timestampMax !== undefined && c.timestampMax < timestamp) return 'failed timestamp maximum constraint';
  return undefined;
}

const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;

/** op-geth's StateDB.CheckTransactionConditional against a state. */
export function checkStateConditional(c: TransactionConditional, state: StateReader): string | undefined {
  const cost = conditionalCost(c);
  if (cost > CONDITIONAL_MAX_COST) return `conditional cost, ${cost}, exceeded max: ${CONDITIONAL_MAX_COST}`;
  for (const [addr, a] of c.knownAccounts) {
    const address = fromHex(addr);
    if ('root' in a) {
      const root = hex(state.getAccount(address)?.storageRoot ?? EMPTY_TRIE_ROOT);
      if (root !== a.root) return `failed account storage root constraint. Got ${root}, Expected ${a.root}`;
    } else {
      for (const [slot, want] of a.slots) {
        const got = word(state.getStorage(address, fromHex(slot)));
        if (got !== want) return `failed account storage slot key ${slot} constraint. Got ${got}, Expected ${want}`;
      }
    }
  }
  return undefined;
}
