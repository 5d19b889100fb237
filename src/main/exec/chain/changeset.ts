// Per-block changes to the flat state tables ('a' accounts, 'o' storage) as plain key operations, so the flat
// state can move between blocks: a canonical block keeps its reverse changes (the prior value of every key it
// touched) to be unwound on a reorg; a side-chain block keeps its forward changes to be applied when it becomes
// canonical. Code and trie nodes are content-addressed and never undone.

import type { KVReader, WriteBatch } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import { fromHex } from '../../primitives/bytes.js';
import { asBytes, asList, bigintToBytes, type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { encodeAccount } from '../../primitives/trie/commitment.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { accountKey, storageKey, storagePrefix } from '../db/schema.js';
import type { StateDiff } from '../state/interface.js';

/** One key of a flat table and its value; undefined deletes the key. */
export type ChangeOp = readonly [key: Uint8Array, value: Uint8Array | undefined];

export interface ChangeSet {
  /** Addresses whose whole flat storage is dropped before `ops` apply (self-destruct, re-creation). */
  readonly wipes: readonly Uint8Array[];
  readonly ops: readonly ChangeOp[];
}

const mapKey = (k: Uint8Array) => Buffer.from(k.buffer, k.byteOffset, k.length).toString('latin1');

/** The forward changes of a block from its state diff and the storage roots its commitment computed. */
export function changesFromDiff(diff: StateDiff, storageRoots: ReadonlyMap<string, Uint8Array>): ChangeSet {
  const wipes: Uint8Array[] = [];
  const ops: ChangeOp[] = [];
  for (const [addrHex, acct] of diff.accounts) {
    const address = fromHex(addrHex);
    if (acct === null) {
      wipes.push(address);
      ops.push([accountKey(address), undefined]);
      continue;
    }
    if (acct.storageCleared) wipes.push(address);
    for (const [slotHex, value] of acct.storage) {
      ops.push([storageKey(address, fromHex(slotHex)), value === 0n ? undefined : bigintToBytes(value)]);
    }
    const root = storageRoots.get(addrHex) ?? EMPTY_TRIE_ROOT;
    ops.push([accountKey(address), encodeAccount(acct.nonce, acct.balance, root, acct.codeHash)]);
  }
  return { wipes, ops };
}

/**
 * Queues `changes` into `b` over the state `before` reads (the committed flat state the changes apply to) and
 * returns the reverse changes: the prior value of every key written or wiped, with no wipes of its own.
 */
export function applyChanges(b: WriteBatch, before: KVReader, changes: ChangeSet): ChangeSet {
  const prior = new Map<string, ChangeOp>();
  for (const address of changes.wipes) {
    for (const { key, value } of before.iterate({ prefix: storagePrefix(address) })) {
      const k = mapKey(key);
      if (!prior.has(k)) prior.set(k, [key, value]);
      b.delete(key);
    }
  }
  for (const [key, value] of changes.ops) {
    const k = mapKey(key);
    if (!prior.has(k)) prior.set(k, [key, before.get(key)]);
    if (value === undefined) b.delete(key);
    else b.put(key, value);
  }
  return { wipes: [], ops: [...prior.values()] };
}

/** Forward changes rebuilt from a block's reverse changes and the state `after` the block (before it is undone). */
export function forwardFromReverse(reverse: ChangeSet, after: KVReader): ChangeSet {
  return { wipes: [], ops: reverse.ops.map(([key]) => [key, after.get(key)] as const) };
}

export function encodeChanges(c: ChangeSet): Uint8Array {
  return rlpEncode([c.wipes as Uint8Array[], c.ops.map(([k, v]) => (v === undefined ? [k] : [k, v]))] as Parameters<
    typeof rlpEncode
  >[0]);
}

export function decodeChanges(raw: Uint8Array): ChangeSet {
  const top = asList(rlpDecode(raw), 'state changes');
  if (top.length !== 2) throw new TernError('DB_CORRUPT', 'stored state changes are malformed');
  const wipes = asList(top[0], 'wipes').map((w) => asBytes(w, 'wiped address'));
  const ops = asList(top[1], 'ops').map((o: RlpDecoded): ChangeOp => {
    const f = asList(o, 'op');
    return [asBytes(f[0], 'key'), f.length > 1 ? asBytes(f[1], 'value') : undefined];
  });
  return { wipes, ops };
}
