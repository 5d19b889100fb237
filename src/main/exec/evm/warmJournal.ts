// The EVM's journal of tern (the object @ethereumjs/evm keeps as `evm.journal`): the EIP-2929 warm sets of one
// transaction, the EIP-161 touched accounts, and their undo on a reverted call frame. It answers everything
// @ethereumjs/evm's Journal answers, with the same results, but keys addresses and slots by their value as a
// bigint instead of a hex string per access, and keeps one undo log with a mark per checkpoint instead of a new
// Map and two Sets per checkpoint. tern's interpreter (./interp/) asks with the stack words it already holds
// (warmAccount, warmSlot, isWarmSlot); ethereumjs's interpreter and runCall keep asking with bytes.
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import { type Account, Address, type PrefixedHexString } from '@ethereumjs/util';

/** RIPEMD-160's precompile stays touched through a revert (the 2016 consensus quirk ethereumjs keeps). */
const RIPEMD160 = '0000000000000000000000000000000000000003';
/** The undo log's slot column for an entry that is not a slot. */
const NO_SLOT = -1n;

interface BufferHex {
  hexSlice(this: Uint8Array, start: number, end: number): string;
}
const { hexSlice } = Buffer.prototype as unknown as BufferHex;

/** The value of `bytes` read big-endian. */
function wordOf(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${hexSlice.call(bytes, 0, bytes.length)}`);
}

/**
 * The key of an address given as bytes: its value when it has 20 bytes (every address the EVM forms), else a
 * negative key that also encodes the length, so that no two byte strings ethereumjs's hex keys tell apart share one.
 * (An EIP-7702 delegation's target is read from code this way: code shorter than a delegation gives a short key.)
 */
export function addressKey(bytes: Uint8Array): bigint {
  const v = wordOf(bytes);
  return bytes.length === 20 ? v : -1n - ((v << 16n) | BigInt(bytes.length));
}

/** The key of a slot given as bytes: its value when it has 32 bytes, else a negative key as for addresses. */
export function slotKey(bytes: Uint8Array): bigint {
  const v = wordOf(bytes);
  return bytes.length === 32 ? v : -1n - ((v << 16n) | BigInt(bytes.length));
}

/** The key of an address or slot given as hex (with or without 0x) of `width` bytes. */
export function hexKey(hex: string, width: number): bigint {
  const digits = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) throw new Error(`journal: invalid hex key ${hex}`);
  const v = digits.length === 0 ? 0n : BigInt(`0x${digits}`);
  const length = digits.length / 2;
  return length === width ? v : -1n - ((v << 16n) | BigInt(length));
}

/** The unprefixed hex ethereumjs reports in its access list for a key (only while reporting one). */
function keyHex(key: bigint, width: number): string {
  if (key >= 0n) return key.toString(16).padStart(width * 2, '0');
  const packed = -1n - key;
  const length = Number(packed & 0xffffn);
  return length === 0 ? '' : (packed >> 16n).toString(16).padStart(length * 2, '0');
}

/**
 * Warm sets, touched accounts and their undo. Drop-in for @ethereumjs/evm's Journal (installed by
 * ./interp/evm.ts's TernEVM); the test compares the two on random operation sequences.
 */
export class WarmJournal {
  /** The access list being reported (ethereumjs's startReportingAccessList), unprefixed hex as ethereumjs has it. */
  accessList?: Map<string, Set<string>>;
  /** The preimages being reported (ethereumjs's startReportingPreimages). */
  preimages?: Map<PrefixedHexString, Uint8Array>;
  private readonly stateManager: StateManagerInterface;
  /** Addresses warmed during the transaction → their warmed slots (null before the first). */
  private readonly warm = new Map<bigint, Set<bigint> | null>();
  /** Addresses and slots warm for the whole transaction (access list, sender, recipient, precompiles, coinbase). */
  private readonly always = new Map<bigint, Set<bigint> | null>();
  /** Accounts touched (EIP-161), unprefixed hex. */
  private readonly touched = new Set<string>();
  /** The undo log: what each entry added — an address (slot NO_SLOT), a slot of an address, or a touched account. */
  private readonly undoKey: Array<bigint | string> = [];
  private readonly undoSlot: bigint[] = [];
  /** The undo log's length at each open checkpoint. */
  private readonly marks: number[] = [];

  constructor(stateManager: StateManagerInterface, _common?: Common) {
    this.stateManager = stateManager;
  }

  startReportingAccessList(): void {
    this.accessList = new Map();
  }

  startReportingPreimages(): void {
    this.preimages = new Map();
  }

  async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.touchAddress(address);
    return this.stateManager.putAccount(address, account);
  }

  async deleteAccount(address: Address): Promise<void> {
    this.touchAddress(address);
    await this.stateManager.deleteAccount(address);
  }

  touchAddress(address: Address): void {
    this.touchAccount(hexSlice.call(address.bytes, 0, address.bytes.length));
  }

  /** Marks an account (unprefixed hex) touched: EIP-161 removes it at the end of the transaction if left empty. */
  touchAccount(address: string): void {
    const preimages = this.preimages;
    if (preimages !== undefined) {
      const getAppliedKey = this.stateManager.getAppliedKey;
      if (getAppliedKey === undefined) {
        throw new Error('touchAccount: stateManager.getAppliedKey can not be undefined if preimage storing is enabled');
      }
      const bytes = Uint8Array.from(Buffer.from(address, 'hex'));
      const hashed = getAppliedKey.call(this.stateManager, bytes);
      preimages.set(`0x${hexSlice.call(hashed, 0, hashed.length)}`, bytes);
    }
    if (!this.touched.has(address)) {
      this.touched.add(address);
      this.undoKey.push(address);
      this.undoSlot.push(NO_SLOT);
    }
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.undoKey.length);
    await this.stateManager.checkpoint();
  }

  /** The checkpoint's additions stay, now owned by the enclosing one. */
  async commit(): Promise<void> {
    this.marks.pop();
    await this.stateManager.commit();
  }

  /** Undoes everything added since the last checkpoint (since the transaction began when none is open). */
  async revert(): Promise<void> {
    this.undoTo(this.marks.pop() ?? 0);
    await this.stateManager.revert();
  }

  private undoTo(mark: number): void {
    const keys = this.undoKey;
    const slots = this.undoSlot;
    for (let i = keys.length - 1; i >= mark; i--) {
      const key = keys[i] as bigint | string;
      const slot = slots[i] as bigint;
      if (typeof key === 'string') {
        if (key !== RIPEMD160) this.touched.delete(key);
      } else if (slot === NO_SLOT) this.warm.delete(key);
      else this.warm.get(key)?.delete(slot);
    }
    keys.length = mark;
    slots.length = mark;
  }

  /** Forgets everything: the start of a transaction. */
  cleanJournal(): void {
    this.warm.clear();
    this.always.clear();
    this.touched.clear();
    this.undoKey.length = 0;
    this.undoSlot.length = 0;
    this.marks.length = 0;
  }

  /** EIP-161: removes the touched accounts left empty, then forgets everything (the end of a transaction). */
  async cleanup(): Promise<void> {
    for (const hex of this.touched) {
      const address = new Address(Uint8Array.from(Buffer.from(hex, 'hex')));
      const account = await this.stateManager.getAccount(address);
      if (account === undefined || account.isEmpty()) await this.deleteAccount(address);
    }
    this.cleanJournal();
    delete this.accessList;
    delete this.preimages;
  }

  /** Warms an address (hex, with or without 0x) for the whole transaction. */
  addAlwaysWarmAddress(addressStr: string, addToAccessList = false): void {
    const key = hexKey(addressStr, 20);
    if (!this.always.has(key)) this.always.set(key, null);
    if (addToAccessList) this.reportAddress(key);
  }

  /** Warms a slot (hex) of an address (hex) for the whole transaction. */
  addAlwaysWarmSlot(addressStr: string, slotStr: string, addToAccessList = false): void {
    const a = hexKey(addressStr, 20);
    const s = hexKey(slotStr, 32);
    let slots = this.always.get(a);
    if (slots == null) {
      slots = new Set();
      this.always.set(a, slots);
    }
    slots.add(s);
    if (addToAccessList) this.reportSlot(a, s);
  }

  /** Warms addresses given as 20-byte words for the whole transaction (the precompiles, the sender, …). */
  warmAlways(address: bigint): void {
    if (!this.always.has(address)) this.always.set(address, null);
  }

  /** Warms a 32-byte slot of a 20-byte address for the whole transaction (the access list). */
  warmAlwaysSlot(address: bigint, slot: bigint): void {
    let slots = this.always.get(address);
    if (slots == null) {
      slots = new Set();
      this.always.set(address, slots);
    }
    slots.add(slot);
  }

  isWarmedAddress(address: Uint8Array): boolean {
    const key = addressKey(address);
    return this.warm.has(key) || this.always.has(key);
  }

  addWarmedAddress(address: Uint8Array): void {
    this.addAddress(addressKey(address));
  }

  isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean {
    return this.isWarmSlot(addressKey(address), slotKey(slot));
  }

  addWarmedStorage(address: Uint8Array, slot: Uint8Array): void {
    this.addSlot(addressKey(address), slotKey(slot));
  }

  /** EIP-2929 account access by a 20-byte word: whether it was warm; warm from now on either way. */
  warmAccount(address: bigint): boolean {
    if (this.warm.has(address) || this.always.has(address)) return true;
    this.addAddress(address);
    return false;
  }

  /** Whether a slot (a 32-byte word) of an address (a 20-byte word) is warm. */
  isWarmSlot(address: bigint, slot: bigint): boolean {
    return this.warm.get(address)?.has(slot) === true || this.always.get(address)?.has(slot) === true;
  }

  /** EIP-2929 slot access by words: whether it was warm; warm from now on either way. */
  warmSlot(address: bigint, slot: bigint): boolean {
    if (this.isWarmSlot(address, slot)) return true;
    this.addSlot(address, slot);
    return false;
  }

  private addAddress(key: bigint): void {
    if (!this.warm.has(key)) {
      this.warm.set(key, null);
      this.undoKey.push(key);
      this.undoSlot.push(NO_SLOT);
    }
    if (this.accessList !== undefined) this.reportAddress(key);
  }

  private addSlot(address: bigint, slot: bigint): void {
    let slots = this.warm.get(address);
    if (slots === undefined) this.addAddress(address);
    if (slots == null) {
      slots = new Set();
      this.warm.set(address, slots);
    }
    if (!slots.has(slot)) {
      slots.add(slot);
      this.undoKey.push(address);
      this.undoSlot.push(slot);
    }
    if (this.accessList !== undefined) this.reportSlot(address, slot);
  }

  private reportAddress(address: bigint): void {
    const list = this.accessList;
    if (list === undefined) return;
    const hex = keyHex(address, 20);
    if (!list.has(hex)) list.set(hex, new Set());
  }

  private reportSlot(address: bigint, slot: bigint): void {
    const list = this.accessList;
    if (list === undefined) return;
    const hex = keyHex(address, 20);
    let slots = list.get(hex);
    if (slots === undefined) {
      slots = new Set();
      list.set(hex, slots);
    }
    slots.add(keyHex(slot, 32));
  }
}
