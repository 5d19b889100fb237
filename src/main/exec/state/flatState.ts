// The flat state execution runs against: a journaled in-memory overlay over a synchronous StateReader. It is the
// StateManagerInterface handed to @ethereumjs/evm, plus synchronous accessors for tern's own state transition.
//
// - Accounts are cached on first touch (one Entry each); storage values live in a per-account Map keyed by the
//   slot's hex, holding both cached reads and writes.
// - checkpoint/commit/revert keep a journal of undo records (prior values), never copies: a checkpoint is an index
//   into the journal, a revert undoes records back to it, a commit just forgets the index.
// - The original-storage cache (EIP-2200/3529 SSTORE gas) records a slot's value at the first write of the
//   transaction; finishTransaction() (or originalStorageCache.clear()) forgets it.
// - diff() hands on what the block changed, in the StateDiff shape the trie commitment consumes; flush() then
//   folds the overlay into its clean cache so the next block starts with an empty diff.
// No trie is ever touched here: getStateRoot and friends throw.
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { bigintToMinimalBytes, bytesToBigintUnsigned, toHexKey } from './hex.js';
import type { AccountDiff, StateDiff, StateReader } from './interface.js';

const EMPTY_CODE = new Uint8Array(0);
/** Bytes of contract code the code cache holds before it starts over. */
const CODE_CACHE_BYTES = 64 * 1024 * 1024;
/** Accounts the overlay keeps as a cache across blocks (see advance()) before it starts over. */
const MAX_CACHED_ACCOUNTS = 500_000;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True for KECCAK256_NULL, the code hash of an account without code. */
export function isEmptyCodeHash(h: Uint8Array): boolean {
  return sameBytes(h, KECCAK256_NULL);
}

/** One cached account: its current value, its storage overlay, and what the block and the transaction did to it. */
class Entry {
  readonly key: string;
  readonly address: Uint8Array;
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** The code, once loaded or set; undefined until needed. */
  code: Uint8Array | undefined;
  /** Storage root as the reader reported it; undefined means the committed storage is empty. */
  baseRoot: Uint8Array | undefined;
  /** baseRoot is the root after the last block (set by FlatState.advance from the commitment), wipes included. */
  rootCurrent = false;
  /** Known slot values: cached reads and writes. A slot absent here reads through to the reader (unless wiped). */
  storage: Map<string, bigint> = new Map();
  /** The committed storage no longer applies (wiped): slots absent from `storage` are zero. */
  wiped = false;

  // Block level, for diff(): not journaled (a reverted change leaves at most a no-op entry in the diff).
  existedBefore: boolean;
  dirty = false;
  clearedInBlock = false;
  written: Set<string> | undefined;

  // Transaction level: slot values at the first write of the transaction (the original-storage cache).
  txOriginal: Map<string, bigint> | undefined;
  /** Storage as it was before a wipe within this transaction, for original values of slots not yet written. */
  txPreWipe: Map<string, bigint> | undefined;
  txPreWipeWiped = false;

  constructor(key: string, address: Uint8Array, record: ReturnType<StateReader['getAccount']>) {
    this.key = key;
    this.address = address;
    if (record === undefined) {
      this.exists = false;
      this.nonce = 0n;
      this.balance = 0n;
      this.codeHash = KECCAK256_NULL;
      this.code = EMPTY_CODE;
      this.baseRoot = undefined;
      this.wiped = true;
    } else {
      this.exists = true;
      this.nonce = record.nonce;
      this.balance = record.balance;
      this.codeHash = record.codeHash;
      this.code = isEmptyCodeHash(record.codeHash) ? EMPTY_CODE : undefined;
      const root = record.storageRoot;
      this.baseRoot = root === undefined || sameBytes(root, KECCAK256_RLP) ? undefined : root;
      this.wiped = this.baseRoot === undefined;
    }
    this.existedBefore = this.exists;
  }
}

const UNDO_ACCOUNT = 0;
const UNDO_SLOT = 1;
const UNDO_WIPE = 2;

/** One journal record: the prior value of whatever a change overwrote. One shape for all kinds (monomorphic). */
class Undo {
  constructor(
    readonly kind: number,
    readonly entry: Entry,
    // UNDO_SLOT
    readonly slot: string,
    readonly value: bigint | undefined,
    // UNDO_ACCOUNT
    readonly exists: boolean,
    readonly nonce: bigint,
    readonly balance: bigint,
    readonly codeHash: Uint8Array,
    readonly code: Uint8Array | undefined,
    // UNDO_WIPE
    readonly storage: Map<string, bigint> | undefined,
    readonly wiped: boolean,
    readonly clearedInBlock: boolean,
  ) {}
}

/**
 * A journaled overlay over a {@link StateReader}. Implements @ethereumjs/common's StateManagerInterface so the
 * EVM can run on it, and offers synchronous accessors (getNonce, addBalance, ...) for the state transition.
 */
export class FlatState implements StateManagerInterface {
  private reader: StateReader;
  private readonly accounts = new Map<string, Entry>();
  private readonly dirty = new Set<Entry>();
  private readonly newCodes = new Map<string, Uint8Array>();
  private readonly journal: Undo[] = [];
  private readonly marks: number[] = [];
  private readonly txEntries: Entry[] = [];
  /**
   * Code by hash (hex key), kept across blocks and readers: code is immutable for its hash, and handing the EVM the
   * same Uint8Array for the same contract lets the interpreter's jump-destination cache (../evm/jumpdest.ts) hit.
   */
  private readonly codeCache = new Map<string, Uint8Array>();
  private codeCacheBytes = 0;

  /** EIP-2200 original values for the EVM: the value of a slot at the start of the current transaction. */
  readonly originalStorageCache: {
    get(address: Address, key: Uint8Array): Promise<Uint8Array>;
    clear(): void;
  };

  constructor(reader: StateReader) {
    this.reader = reader;
    this.originalStorageCache = {
      get: async (address, key) => bigintToMinimalBytes(this.getOriginalStorageValue(address.bytes, key)),
      clear: () => this.finishTransaction(),
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Entries

  private entry(address: Uint8Array): Entry {
    const key = toHexKey(address);
    let e = this.accounts.get(key);
    if (e === undefined) {
      e = new Entry(key, address.slice(), this.reader.getAccount(address));
      this.accounts.set(key, e);
    }
    return e;
  }

  private recordAccount(e: Entry): void {
    if (this.marks.length > 0) {
      this.journal.push(
        new Undo(
          UNDO_ACCOUNT,
          e,
          '',
          undefined,
          e.exists,
          e.nonce,
          e.balance,
          e.codeHash,
          e.code,
          undefined,
          false,
          false,
        ),
      );
    }
    if (!e.dirty) {
      e.dirty = true;
      this.dirty.add(e);
    }
  }

  private recordWipe(e: Entry): void {
    if (this.marks.length > 0) {
      this.journal.push(
        new Undo(
          UNDO_WIPE,
          e,
          '',
          undefined,
          false,
          0n,
          0n,
          KECCAK256_NULL,
          undefined,
          e.storage,
          e.wiped,
          e.clearedInBlock,
        ),
      );
    }
    if (e.txPreWipe === undefined) {
      e.txPreWipe = e.storage;
      e.txPreWipeWiped = e.wiped;
      if (e.txOriginal === undefined) this.txEntries.push(e);
    }
  }

  private wipeStorage(e: Entry): void {
    this.recordWipe(e);
    e.storage = new Map();
    e.wiped = true;
    e.clearedInBlock = true;
    if (!e.dirty) {
      e.dirty = true;
      this.dirty.add(e);
    }
  }

  /** Current value of a slot (hex key `slot`, bytes `slotBytes`). */
  private slotValue(e: Entry, slot: string, slotBytes: Uint8Array): bigint {
    const v = e.storage.get(slot);
    if (v !== undefined) return v;
    if (e.wiped) return 0n;
    const base = this.reader.getStorage(e.address, slotBytes);
    e.storage.set(slot, base);
    return base;
  }

  /** The slot's value at the start of the current transaction. */
  private originalValue(e: Entry, slot: string, slotBytes: Uint8Array): bigint {
    const o = e.txOriginal?.get(slot);
    if (o !== undefined) return o;
    const pre = e.txPreWipe;
    if (pre !== undefined) {
      const v = pre.get(slot);
      if (v !== undefined) return v;
      return e.txPreWipeWiped ? 0n : this.reader.getStorage(e.address, slotBytes);
    }
    return this.slotValue(e, slot, slotBytes);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Synchronous accessors (the state transition's fast path)

  /** Whether the account exists (EIP-161: an account can exist and be empty). */
  exists(address: Address): boolean {
    return this.entry(address.bytes).exists;
  }

  /** EIP-161 emptiness: no nonce, no balance, no code (a missing account is empty too). */
  isEmpty(address: Address): boolean {
    const e = this.entry(address.bytes);
    return !e.exists || (e.nonce === 0n && e.balance === 0n && isEmptyCodeHash(e.codeHash));
  }

  getNonce(address: Address): bigint {
    return this.entry(address.bytes).nonce;
  }

  getBalance(address: Address): bigint {
    return this.entry(address.bytes).balance;
  }

  getCodeHash(address: Address): Uint8Array {
    return this.entry(address.bytes).codeHash;
  }

  /** The account's code (empty for none), loaded once. */
  getCodeSync(address: Address): Uint8Array {
    return this.loadCode(this.entry(address.bytes));
  }

  private loadCode(e: Entry): Uint8Array {
    if (e.code !== undefined) return e.code;
    const hashKey = toHexKey(e.codeHash);
    let code = this.codeCache.get(hashKey) ?? this.newCodes.get(hashKey);
    if (code === undefined) {
      code = this.reader.getCode(e.codeHash);
      this.cacheCode(hashKey, code);
    }
    e.code = code;
    return code;
  }

  private cacheCode(hashKey: string, code: Uint8Array): void {
    if (this.codeCacheBytes + code.length > CODE_CACHE_BYTES) {
      this.codeCache.clear();
      this.codeCacheBytes = 0;
    }
    this.codeCache.set(hashKey, code);
    this.codeCacheBytes += code.length;
  }

  setNonce(address: Address, nonce: bigint): void {
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.nonce = nonce;
    e.exists = true;
  }

  setBalance(address: Address, balance: bigint): void {
    if (balance < 0n) throw new TernError('STATE_NEGATIVE_BALANCE', `negative balance for ${address.toString()}`);
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.balance = balance;
    e.exists = true;
  }

  addBalance(address: Address, amount: bigint): void {
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.balance += amount;
    e.exists = true;
  }

  subBalance(address: Address, amount: bigint): void {
    const e = this.entry(address.bytes);
    if (e.balance < amount) {
      throw new TernError('STATE_NEGATIVE_BALANCE', `balance of ${address.toString()} below ${amount}`);
    }
    this.recordAccount(e);
    e.balance -= amount;
    e.exists = true;
  }

  /** Sets the account's code (creating the account if needed); empty code means none. */
  setCode(address: Address, code: Uint8Array): void {
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.exists = true;
    if (code.length === 0) {
      e.codeHash = KECCAK256_NULL;
      e.code = EMPTY_CODE;
      return;
    }
    const hash = keccak256(code);
    e.codeHash = hash;
    e.code = code;
    this.newCodes.set(toHexKey(hash), code);
  }

  /** Removes the account and its storage. */
  removeAccount(address: Address): void {
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.exists = false;
    e.nonce = 0n;
    e.balance = 0n;
    e.codeHash = KECCAK256_NULL;
    e.code = EMPTY_CODE;
    // A storage known to be empty (wiped, nothing written since) has nothing to clear.
    if (!e.wiped || e.storage.size > 0) this.wipeStorage(e);
  }

  /** The current value of a storage slot. */
  getStorageValue(address: Uint8Array, slot: Uint8Array): bigint {
    const e = this.entry(address);
    return this.slotValue(e, toHexKey(slot), slot);
  }

  /** Writes a storage slot (0n clears it). */
  setStorageValue(address: Uint8Array, slot: Uint8Array, value: bigint): void {
    const e = this.entry(address);
    const key = toHexKey(slot);
    // Remember the value at the start of the transaction before the first write to the slot in it.
    let orig = e.txOriginal;
    if (orig === undefined) {
      orig = new Map();
      if (e.txPreWipe === undefined) this.txEntries.push(e);
      e.txOriginal = orig;
    }
    if (!orig.has(key)) orig.set(key, this.originalValue(e, key, slot));
    const storage = e.storage;
    if (this.marks.length > 0) {
      this.journal.push(
        new Undo(
          UNDO_SLOT,
          e,
          key,
          storage.get(key),
          false,
          0n,
          0n,
          KECCAK256_NULL,
          undefined,
          undefined,
          false,
          false,
        ),
      );
    }
    storage.set(key, value);
    let written = e.written;
    if (written === undefined) {
      written = new Set();
      e.written = written;
    }
    written.add(key);
    if (!e.dirty) {
      e.dirty = true;
      this.dirty.add(e);
    }
  }

  /** The slot's value at the start of the current transaction (EIP-2200 "original value"). */
  getOriginalStorageValue(address: Uint8Array, slot: Uint8Array): bigint {
    return this.originalValue(this.entry(address), toHexKey(slot), slot);
  }

  /** Ends the current transaction: forgets the original-storage values. Call after every transaction. */
  finishTransaction(): void {
    const list = this.txEntries;
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      e.txOriginal = undefined;
      e.txPreWipe = undefined;
      e.txPreWipeWiped = false;
    }
    list.length = 0;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Journal

  /** Depth of open checkpoints. */
  get checkpointDepth(): number {
    return this.marks.length;
  }

  checkpointSync(): void {
    this.marks.push(this.journal.length);
  }

  commitSync(): void {
    if (this.marks.pop() === undefined) throw new TernError('STATE_JOURNAL', 'commit without a checkpoint');
    // Nothing can revert past the outermost checkpoint: drop the records.
    if (this.marks.length === 0) this.journal.length = 0;
  }

  revertSync(): void {
    const mark = this.marks.pop();
    if (mark === undefined) throw new TernError('STATE_JOURNAL', 'revert without a checkpoint');
    const journal = this.journal;
    for (let i = journal.length - 1; i >= mark; i--) {
      const u = journal[i] as Undo;
      const e = u.entry;
      switch (u.kind) {
        case UNDO_SLOT:
          if (u.value === undefined) e.storage.delete(u.slot);
          else e.storage.set(u.slot, u.value);
          break;
        case UNDO_ACCOUNT:
          e.exists = u.exists;
          e.nonce = u.nonce;
          e.balance = u.balance;
          e.codeHash = u.codeHash;
          e.code = u.code;
          break;
        default:
          e.storage = u.storage as Map<string, bigint>;
          e.wiped = u.wiped;
          e.clearedInBlock = u.clearedInBlock;
          break;
      }
    }
    journal.length = mark;
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.journal.length);
  }

  async commit(): Promise<void> {
    this.commitSync();
  }

  async revert(): Promise<void> {
    this.revertSync();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // StateManagerInterface (what @ethereumjs/evm calls)

  async getAccount(address: Address): Promise<Account | undefined> {
    const e = this.entry(address.bytes);
    if (!e.exists) return undefined;
    // Only the emptiness of the storage root matters to the EVM (EIP-7610 collision check). A storage wiped in this
    // block counts as empty; after advance() the root is the commitment's, whatever wipes came before.
    const root = e.clearedInBlock
      ? KECCAK256_RLP
      : e.rootCurrent
        ? (e.baseRoot ?? KECCAK256_RLP)
        : e.wiped || e.baseRoot === undefined
          ? KECCAK256_RLP
          : e.baseRoot;
    return new Account(e.nonce, e.balance, root, e.codeHash);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) {
      this.removeAccount(address);
      return;
    }
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.exists = true;
    e.nonce = account.nonce;
    e.balance = account.balance;
    const codeHash = account.codeHash;
    if (!sameBytes(codeHash, e.codeHash)) {
      e.codeHash = codeHash;
      e.code = isEmptyCodeHash(codeHash) ? EMPTY_CODE : undefined;
    }
  }

  async deleteAccount(address: Address): Promise<void> {
    this.removeAccount(address);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const e = this.entry(address.bytes);
    this.recordAccount(e);
    e.exists = true;
    if (fields.nonce !== undefined) e.nonce = fields.nonce;
    if (fields.balance !== undefined) e.balance = fields.balance;
    if (fields.codeHash !== undefined && !sameBytes(fields.codeHash, e.codeHash)) {
      e.codeHash = fields.codeHash;
      e.code = isEmptyCodeHash(fields.codeHash) ? EMPTY_CODE : undefined;
    }
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.setCode(address, value);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const e = this.entry(address.bytes);
    if (!e.exists) return EMPTY_CODE;
    return this.loadCode(e);
  }

  async getCodeSize(address: Address): Promise<number> {
    const e = this.entry(address.bytes);
    if (!e.exists) return 0;
    return this.loadCode(e).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const e = this.entry(address.bytes);
    return bigintToMinimalBytes(this.slotValue(e, toHexKey(key), key));
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.setStorageValue(address.bytes, key, bytesToBigintUnsigned(value));
  }

  async clearStorage(address: Address): Promise<void> {
    const e = this.entry(address.bytes);
    if (!e.wiped || e.storage.size > 0) this.wipeStorage(e);
  }

  async getStateRoot(): Promise<Uint8Array> {
    throw noTrie('getStateRoot');
  }

  async setStateRoot(): Promise<void> {
    throw noTrie('setStateRoot');
  }

  async hasStateRoot(): Promise<boolean> {
    throw noTrie('hasStateRoot');
  }

  /** Nothing to do: the overlay is the state until flush(); use reset() to drop it. */
  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    throw new TernError('UNSUPPORTED', 'FlatState cannot be copied: give each executor its own over the same reader');
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Block level

  /**
   * What changed since the last flush (or since construction): the accounts modified, their final values and
   * written slots, accounts deleted (null), and new code. Does not change the state; call with no checkpoint open.
   */
  diff(): StateDiff {
    const accounts = new Map<string, AccountDiff | null>();
    const referenced = new Set<string>();
    for (const e of this.dirty) {
      if (!e.exists) {
        if (e.existedBefore) accounts.set(e.key, null);
        continue;
      }
      const storage = new Map<string, bigint>();
      if (e.written !== undefined) {
        for (const slot of e.written) {
          const v = e.storage.get(slot);
          // Absent after a revert: the slot is back at its committed value, unchanged.
          if (v !== undefined) storage.set(slot, v);
        }
      }
      accounts.set(e.key, {
        nonce: e.nonce,
        balance: e.balance,
        codeHash: e.codeHash,
        storage,
        storageCleared: e.clearedInBlock,
      });
      if (!isEmptyCodeHash(e.codeHash)) referenced.add(toHexKey(e.codeHash));
    }
    const codes = new Map<string, Uint8Array>();
    for (const [hash, code] of this.newCodes) if (referenced.has(hash)) codes.set(hash, code);
    return { accounts, codes };
  }

  /**
   * Marks the current state as committed (after the block's diff was taken): the next diff() starts empty. The
   * overlay stays as a cache, so the reader may keep serving the pre-block snapshot. Pass the reader of the new
   * committed state (one that includes this diff) to switch to it and drop the cache.
   */
  flush(reader?: StateReader): void {
    if (this.marks.length > 0) throw new TernError('STATE_JOURNAL', 'flush with a checkpoint open');
    for (const e of this.dirty) {
      e.existedBefore = e.exists;
      e.dirty = false;
      e.rootCurrent = false;
      e.clearedInBlock = false;
      e.written = undefined;
    }
    this.dirty.clear();
    this.newCodes.clear();
    this.finishTransaction();
    if (reader !== undefined) {
      this.reader = reader;
      this.accounts.clear();
    }
  }

  /**
   * Commits the block like flush() and keeps every cached account and slot as a warm cache for the next block.
   * Until rebase() names a reader of the state this overlay now holds (the block's post-state), reading anything
   * not cached throws. `storageRoots` are the new storage roots of the accounts the block changed (the trie
   * commitment's), so EIP-7610's emptiness check stays exact. The cache starts over once it holds too many
   * accounts: then it returns false (the overlay no longer holds every change since it was last reset).
   */
  advance(storageRoots: ReadonlyMap<string, Uint8Array>): boolean {
    if (this.marks.length > 0) throw new TernError('STATE_JOURNAL', 'advance with a checkpoint open');
    const changed = [...this.dirty];
    for (const [hash, code] of this.newCodes) if (!this.codeCache.has(hash)) this.cacheCode(hash, code);
    this.flush();
    for (const e of changed) {
      const root = storageRoots.get(e.key);
      if (root !== undefined) {
        e.baseRoot = sameBytes(root, KECCAK256_RLP) ? undefined : root;
        e.rootCurrent = true;
      } else if (!e.exists) {
        e.baseRoot = undefined;
        e.rootCurrent = true;
      }
    }
    this.reader = NO_READER;
    if (this.accounts.size <= MAX_CACHED_ACCOUNTS) return true;
    this.accounts.clear();
    return false;
  }

  /** Points the overlay at another reader of the same state (e.g. a fresh snapshot), keeping the cache. */
  rebase(reader: StateReader): void {
    if (this.marks.length > 0 || this.dirty.size > 0)
      throw new TernError('STATE_JOURNAL', 'rebase with uncommitted changes: call advance() or reset() first');
    this.reader = reader;
  }

  /** Drops everything (overlay, journal, diff) and reads from `reader` from now on. */
  reset(reader: StateReader): void {
    this.reader = reader;
    this.accounts.clear();
    this.dirty.clear();
    this.newCodes.clear();
    this.journal.length = 0;
    this.marks.length = 0;
    this.txEntries.length = 0;
  }
}

/** The reader between advance() and rebase(): the state it would have to show is not named yet. */
const NO_READER: StateReader = {
  getAccount: () => noReader(),
  getStorage: () => noReader(),
  getCode: () => noReader(),
};

function noReader(): never {
  throw new TernError('STATE_JOURNAL', 'FlatState read after advance() and before rebase(): no reader for the state');
}

function noTrie(what: string): TernError {
  return new TernError('UNSUPPORTED', `FlatState.${what}: the flat state has no trie; roots come from the state diff`);
}
