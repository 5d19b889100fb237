// The state after a computed pending block (--rollup.computependingblock, ../chain/pending.ts): its parent's state
// with the block's changes on top, never persisted.
import type { AccountRecord, StateDiff, StateReader } from './interface.js';

const hexKey = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

/** The state after the pending block: the parent's state with the block's diff on top. */
export class PendingStateReader implements StateReader {
  constructor(
    private readonly base: StateReader,
    private readonly diff: StateDiff,
  ) {}

  getAccount(address: Uint8Array): AccountRecord | undefined {
    const key = hexKey(address);
    if (!this.diff.accounts.has(key)) return this.base.getAccount(address);
    const d = this.diff.accounts.get(key);
    if (d === null || d === undefined) return undefined;
    return { nonce: d.nonce, balance: d.balance, codeHash: d.codeHash };
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    const key = hexKey(address);
    if (!this.diff.accounts.has(key)) return this.base.getStorage(address, slot);
    const d = this.diff.accounts.get(key);
    if (d === null || d === undefined) return 0n;
    const v = d.storage.get(hexKey(slot));
    if (v !== undefined) return v;
    return d.storageCleared ? 0n : this.base.getStorage(address, slot);
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    return this.diff.codes.get(hexKey(codeHash)) ?? this.base.getCode(codeHash);
  }
}
