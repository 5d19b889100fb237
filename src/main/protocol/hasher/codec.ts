// Packed buffers for the trie worker's messages (ARCHITECTURE.md convention 7): a state diff in one Uint8Array, a
// commitment as a few typed arrays (its new nodes already packed), all transferred rather than copied.
//
// Diff: u32 account count, then per account: address (20), flag (0 deleted, 1 exists, 2 exists and storage cleared),
// and for existing accounts nonce, balance (32 each, big-endian), code hash (32), u32 slot count, then per slot the
// slot (32) and its new value (32).

import { fromHex, toHexKey } from '../../primitives/bytes.js';
import { TernError } from '../../primitives/errors.js';
import type { AccountChange, StateCommitmentResult, StateDiff } from '../../primitives/trie/commitment.js';
import type { PackedNodes } from '../../primitives/trie/interface.js';
import { checkNodes, copyNodes, nodeBuffers } from '../../primitives/trie/packedNodes.js';

const WORD = 32;
const ADDRESS = 20;

function writeWord(out: Uint8Array, at: number, v: bigint): void {
  if (v < 0n || v >= 1n << 256n) throw new TernError('STATE_BAD_VALUE', `state diff: ${v} is not a uint256`);
  if (v === 0n) return; // out is zero-filled
  const hex = v.toString(16);
  out.set(Buffer.from(hex.length & 1 ? `0${hex}` : hex, 'hex'), at + WORD - ((hex.length + 1) >> 1));
}

function readWord(b: Uint8Array, at: number): bigint {
  const hex = Buffer.from(b.buffer, b.byteOffset + at, WORD).toString('hex');
  return BigInt(`0x${hex}`);
}

function keyBytes(key: string, length: number): Uint8Array {
  const b = fromHex(key);
  if (b.length !== length) throw new TernError('STATE_BAD_KEY', `state diff: ${key} is not ${length} bytes of hex`);
  return b;
}

export function encodeDiff(diff: StateDiff): Uint8Array {
  let size = 4;
  for (const change of diff.accounts.values()) {
    size += ADDRESS + 1;
    if (change !== null) size += 3 * WORD + 4 + change.storage.size * 2 * WORD;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, diff.accounts.size);
  let at = 4;
  for (const [address, change] of diff.accounts) {
    out.set(keyBytes(address, ADDRESS), at);
    at += ADDRESS;
    if (change === null) {
      out[at++] = 0;
      continue;
    }
    out[at++] = change.storageCleared === true ? 2 : 1;
    writeWord(out, at, change.nonce);
    writeWord(out, at + WORD, change.balance);
    if (change.codeHash.length !== WORD)
      throw new TernError('STATE_BAD_VALUE', 'state diff: code hash is not 32 bytes');
    out.set(change.codeHash, at + 2 * WORD);
    at += 3 * WORD;
    view.setUint32(at, change.storage.size);
    at += 4;
    for (const [slot, value] of change.storage) {
      out.set(keyBytes(slot, WORD), at);
      writeWord(out, at + WORD, value);
      at += 2 * WORD;
    }
  }
  return out;
}

export function decodeDiff(data: Uint8Array): StateDiff {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const accounts = new Map<string, AccountChange | null>();
  const n = view.getUint32(0);
  let at = 4;
  for (let i = 0; i < n; i++) {
    const address = toHexKey(data.subarray(at, at + ADDRESS));
    at += ADDRESS;
    const flag = data[at++];
    if (flag === 0) {
      accounts.set(address, null);
      continue;
    }
    const nonce = readWord(data, at);
    const balance = readWord(data, at + WORD);
    const codeHash = data.slice(at + 2 * WORD, at + 3 * WORD);
    at += 3 * WORD;
    const slots = view.getUint32(at);
    at += 4;
    const storage = new Map<string, bigint>();
    for (let j = 0; j < slots; j++) {
      storage.set(toHexKey(data.subarray(at, at + WORD)), readWord(data, at + WORD));
      at += 2 * WORD;
    }
    const change: AccountChange = { nonce, balance, codeHash, storage };
    if (flag === 2) change.storageCleared = true;
    accounts.set(address, change);
  }
  if (at !== data.length)
    throw new TernError('HASHER_BAD_INPUT', `packed state diff has ${data.length - at} extra bytes`);
  return { accounts };
}

/** A commitment as packed arrays: its new nodes as the commitment packed them, the storage roots in two arrays. */
export interface PackedCommitment {
  root: Uint8Array;
  newNodes: PackedNodes;
  /** 20 bytes per account, its storage root at the same index in `roots` (32 bytes each). */
  addresses: Uint8Array;
  roots: Uint8Array;
}

/**
 * The commitment's arrays for transfer. The new nodes go as they are, with no per-node work; with `copyNodes` into
 * arrays of their own first (the sender keeps views into the originals, which a transfer would detach).
 */
export function packCommitment(c: StateCommitmentResult, opts: { copyNodes: boolean }): PackedCommitment {
  const m = c.storageRoots.size;
  const addresses = new Uint8Array(ADDRESS * m);
  const roots = new Uint8Array(WORD * m);
  let j = 0;
  for (const [address, root] of c.storageRoots) {
    addresses.set(keyBytes(address, ADDRESS), ADDRESS * j);
    roots.set(root, WORD * j);
    j++;
  }
  const newNodes = opts.copyNodes ? copyNodes(c.newNodes) : c.newNodes;
  return { root: c.root.slice(), newNodes, addresses, roots };
}

export function unpackCommitment(p: PackedCommitment): StateCommitmentResult {
  checkNodes(p.newNodes);
  if (p.addresses.length % ADDRESS !== 0 || p.roots.length !== (p.addresses.length / ADDRESS) * WORD) {
    throw new TernError('HASHER_BAD_INPUT', 'packed commitment: storage roots and addresses do not pair up');
  }
  const storageRoots = new Map<string, Uint8Array>();
  const m = p.addresses.length / ADDRESS;
  for (let j = 0; j < m; j++)
    storageRoots.set(
      toHexKey(p.addresses.subarray(ADDRESS * j, ADDRESS * j + ADDRESS)),
      p.roots.subarray(WORD * j, WORD * j + WORD),
    );
  return { root: p.root, newNodes: p.newNodes, storageRoots };
}

/** The distinct buffers of a packed commitment, to transfer. */
export function commitmentBuffers(p: PackedCommitment): ArrayBuffer[] {
  const buffers = new Set([...nodeBuffers(p.newNodes), ...[p.root, p.addresses, p.roots].map((a) => a.buffer)]);
  return [...buffers] as ArrayBuffer[];
}
