// The flat state in the database as execution and the trie commitment see it: accounts as their consensus RLP
// ([nonce, balance, storageRoot, codeHash], the same bytes the account trie holds), storage values as minimal
// big-endian bytes, code by hash, trie nodes by hash. Writing a block's diff is one pass into its write batch.

import type { KVReader, WriteBatch } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { fromHex } from '../../primitives/bytes.js';
import { asBytes, asList, bigintToBytes, bytesToBigint, rlpDecode } from '../../primitives/rlp.js';
import { encodeAccount } from '../../primitives/trie/commitment.js';
import type { NodeReader, PackedNodes } from '../../primitives/trie/interface.js';
import { eachNode } from '../../primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import {
  deleteAccount,
  deleteAllStorage,
  deleteStorage,
  readAccount,
  readCode,
  readStorage,
  readTrieNode,
  writeAccount,
  writeCode,
  writeStorage,
  writeTrieNode,
} from '../db/state.js';
import type { AccountRecord, StateDiff, StateReader } from './interface.js';

/** keccak256 of empty code: the code hash of every account without code. */
export const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));

export function decodeAccountRecord(raw: Uint8Array): AccountRecord {
  const f = asList(rlpDecode(raw), 'account');
  return {
    nonce: bytesToBigint(asBytes(f[0], 'account nonce')),
    balance: bytesToBigint(asBytes(f[1], 'account balance')),
    storageRoot: asBytes(f[2], 'account storage root'),
    codeHash: asBytes(f[3], 'account code hash'),
  };
}

/** Execution's view of the committed state, over a database snapshot (consistent for the whole block). */
export class DbStateReader implements StateReader, NodeReader {
  constructor(private readonly kv: KVReader) {}

  getAccount(address: Uint8Array): AccountRecord | undefined {
    const raw = readAccount(this.kv, address);
    return raw === undefined ? undefined : decodeAccountRecord(raw);
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    const raw = readStorage(this.kv, address, slot);
    return raw === undefined ? 0n : bytesToBigint(raw, 'storage value');
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    if (Buffer.compare(codeHash, EMPTY_CODE_HASH) === 0) return new Uint8Array(0);
    const code = readCode(this.kv, codeHash);
    if (code === undefined) {
      throw new TernError('STATE_MISSING_CODE', `database lacks code 0x${Buffer.from(codeHash).toString('hex')}`);
    }
    return code;
  }

  /** Trie nodes for the commitment. */
  get(hash: Uint8Array): Uint8Array | undefined {
    return readTrieNode(this.kv, hash);
  }
}

/**
 * Queues a block's state changes: accounts with their new storage roots, storage slots (all of an account's
 * old slots first when its storage was cleared), new code, and the commitment's new trie nodes.
 */
export function writeStateDiff(
  b: WriteBatch,
  before: KVReader,
  diff: StateDiff,
  storageRoots: ReadonlyMap<string, Uint8Array>,
  newNodes: PackedNodes,
): void {
  for (const [addrHex, acct] of diff.accounts) {
    const address = fromHex(addrHex);
    if (acct === null) {
      deleteAccount(b, address);
      deleteAllStorage(before, b, address);
      continue;
    }
    if (acct.storageCleared) deleteAllStorage(before, b, address);
    for (const [slotHex, value] of acct.storage) {
      const slot = fromHex(slotHex);
      if (value === 0n) deleteStorage(b, address, slot);
      else writeStorage(b, address, slot, bigintToBytes(value));
    }
    const root = storageRoots.get(addrHex) ?? EMPTY_TRIE_ROOT;
    writeAccount(b, address, encodeAccount(acct.nonce, acct.balance, root, acct.codeHash));
  }
  for (const [hashHex, code] of diff.codes) writeCode(b, fromHex(hashHex), code);
  for (const [hash, rlp] of eachNode(newNodes)) writeTrieNode(b, hash.slice(), rlp.slice());
}
