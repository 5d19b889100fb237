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
import { bigintToMinimalBytes, bytesToBigintUnsigned, toHexKey } from '../../primitives/bytes.js';
import type { AccountDiff, StateDiff, StateReader } from './interface.js';

const EMPTY_CODE = new Uint8Array(0);
/** Default of FlatStateOptions.codeCacheBytes (geth's contract-code cache is 64 MiB too). */
const CODE_CACHE_BYTES = 64 * 1024 * 1024;
/** Default of FlatStateOptions.maxCachedAccounts. */
const MAX_CACHED_ACCOUNTS = 500_000;

/**
 * Estimated heap bytes of one account kept in the cross-block cache, with its cached slots: ~730 bytes for an
 * account without code (its Entry, hex key, address, code hash and bigints), ~930 with code and a storage root,
 * plus ~150 per cached slot (hex key, bigint, Map entry) — measured with process.memoryUsage() over 10^4-10^5
 * accounts (test/unit/main/exec/state/flatStateOptions.test.ts). Assumes 4 cached slots per cached account on
 * average: contracts' storage is most of what blocks read. The cache is bounded by accounts, so an unusually
 * slot-heavy workload takes more than its share; one that touches mostly plain accounts, less.
 */
export const CACHED_ACCOUNT_BYTES = 1536;

/** The sizes of the caches a FlatState keeps across blocks (tern-exec derives them from --cache.snapshot). */
export interface FlatStateOptions {
  /** Bytes of contract code the code cache holds before it starts over; 0 keeps no code across blocks. */
  codeCacheBytes: number;
  /** Accounts the overlay keeps as a cache across blocks (see advance()) before it starts over; 0 keeps none. */
  maxCachedAccounts: number;
}

export const flatStateDefaults: FlatStateOptions = {
  codeCacheBytes: CODE_CACHE_BYTES,
  maxCachedAccounts: MAX_CACHED_ACCOUNTS,
};

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
  /** The root after the last block is still being computed (advance with deferred roots); see PendingRoot. */
  pendingRoot: PendingRoot | undefined;
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

/**
 * A storage root the trie hasher has not delivered yet (FlatState.advance with a promise): the block's roots, and
 * what the overlay already knows of this account's storage emptiness — the one thing the EVM reads from a storage
 * root (EIP-7610's collision check) — so reads wait for the hasher only when the overlay cannot tell.
 */
class PendingRoot {
  constructor(
    readonly roots: Promise<ReadonlyMap<string, Uint8Array>>,
    readonly known: 'empty' | 'nonempty' | undefined,
  ) {}
}

/**
 * The storage root getAccount reports for a non-empty storage whose exact root is still being hashed. Only its
 * emptiness is ever read (see getAccount); it is not a real root.
 */
export const PENDING_STORAGE_ROOT: Uint8Array = new Uint8Array(32).fill(0xff);

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
  /** The cache bounds (FlatStateOptions). */
  readonly opts: Readonly<FlatStateOptions>;

  /** EIP-2200 original values for the EVM: the value of a slot at the start of the current transaction. */
  readonly originalStorageCache: {
    get(address: Address, key: Uint8Array): Promise<Uint8Array>;
    clear(): void;
  };

  constructor(reader: StateReader, opts: Partial<FlatStateOptions> = {}) {
    this.reader = reader;
    this.opts = { ...flatStateDefaults, ...opts };
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
      // A copy of its own: Buffer#slice would be a view of the caller's buffer (aliased, and holding all of it).
      e = new Entry(key, Uint8Array.prototype.slice.call(address), this.reader.getAccount(address));
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
    if (this.opts.codeCacheBytes === 0) return;
    if (this.codeCacheBytes + code.length > this.opts.codeCacheBytes) {
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
    // block counts as empty; after advance() the root is the commitment's, whatever wipes came before. A root still
    // being hashed is reported by its known emptiness, and waited for only when the overlay cannot tell.
    let pending = e.clearedInBlock ? undefined : e.pendingRoot;
    if (pending !== undefined && pending.known === undefined) {
      await pending.roots; // advance()'s handler, registered first, has resolved the entry by now
      pending = e.pendingRoot;
      if (!e.exists) return undefined;
    }
    const root = e.clearedInBlock
      ? KECCAK256_RLP
      : pending !== undefined
        ? pending.known === 'empty'
          ? KECCAK256_RLP
          : PENDING_STORAGE_ROOT
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
  advance(storageRoots: ReadonlyMap<string, Uint8Array> | Promise<ReadonlyMap<string, Uint8Array>>): boolean {
    if (this.marks.length > 0) throw new TernError('STATE_JOURNAL', 'advance with a checkpoint open');
    const changed = [...this.dirty];
    // Before flush() forgets them: whose storage the block touched, and whose root was current before it.
    const touched = changed.map((e) => e.clearedInBlock || (e.written !== undefined && e.written.size > 0));
    const wasCurrent = changed.map((e) => e.rootCurrent);
    for (const [hash, code] of this.newCodes) if (!this.codeCache.has(hash)) this.cacheCode(hash, code);
    this.flush();
    if (storageRoots instanceof Promise) this.deferRoots(changed, touched, wasCurrent, storageRoots);
    else {
      for (const e of changed) {
        const root = storageRoots.get(e.key);
        e.pendingRoot = undefined;
        if (root !== undefined) {
          e.baseRoot = sameBytes(root, KECCAK256_RLP) ? undefined : root;
          e.rootCurrent = true;
        } else if (!e.exists) {
          e.baseRoot = undefined;
          e.rootCurrent = true;
        }
      }
    }
    this.reader = NO_READER;
    if (this.accounts.size <= this.opts.maxCachedAccounts) return true;
    this.accounts.clear();
    return false;
  }

  /**
   * advance() with the block's storage roots still being hashed (the importer's pipeline): an account whose storage
   * the block did not touch keeps the root it had; the others get a PendingRoot, resolved when the roots land. Their
   * emptiness is known at once when a slot the overlay holds is nonzero (non-empty), or when the overlay holds the
   * whole storage (wiped) and every slot is zero (empty); otherwise getAccount waits for the root. A rejected promise
   * (the block turned out invalid) leaves the pending entries for the importer to drop with the overlay.
   */
  private deferRoots(
    changed: readonly Entry[],
    touched: readonly boolean[],
    wasCurrent: readonly boolean[],
    roots: Promise<ReadonlyMap<string, Uint8Array>>,
  ): void {
    const waiting: Array<[Entry, PendingRoot]> = [];
    changed.forEach((e, i) => {
      if (!e.exists) {
        e.pendingRoot = undefined;
        e.baseRoot = undefined;
        e.rootCurrent = true;
      } else if (!touched[i]) {
        // Same storage, same root (or the same pending one): as before the block.
        e.rootCurrent = wasCurrent[i] as boolean;
      } else {
        let known: PendingRoot['known'];
        for (const v of e.storage.values()) {
          if (v !== 0n) {
            known = 'nonempty';
            break;
          }
        }
        if (known === undefined && e.wiped) known = 'empty';
        const pending = new PendingRoot(roots, known);
        e.pendingRoot = pending;
        waiting.push([e, pending]);
      }
    });
    roots.then(
      (map) => {
        for (const [e, pending] of waiting) {
          if (e.pendingRoot !== pending) continue;
          const root = map.get(e.key);
          e.baseRoot = root === undefined || sameBytes(root, KECCAK256_RLP) ? undefined : root;
          e.rootCurrent = true;
          e.pendingRoot = undefined;
        }
      },
      () => {},
    );
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
