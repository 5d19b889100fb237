// tern's journal against @ethereumjs/evm's own Journal: the same random sequences of warm-set additions (by bytes,
// by hex and by word), touches, checkpoints, commits and reverts must leave the same addresses and slots warm, the
// same accounts touched (EIP-161 cleanup deletes the same ones) and report the same access list.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { Account, Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { mulberryRng } from '../../../../../bench/rng.js';
import { createTernEVM } from '../../../../../src/main/exec/evm/interp/evm.js';
import { addressKey, slotKey, WarmJournal } from '../../../../../src/main/exec/evm/warmJournal.js';

/** A state manager that records what the journals do to it (both must do the same). */
class RecordingState {
  readonly calls: string[] = [];
  readonly empty = new Set<string>();
  async checkpoint() {
    this.calls.push('checkpoint');
  }
  async commit() {
    this.calls.push('commit');
  }
  async revert() {
    this.calls.push('revert');
  }
  async putAccount(a: Address) {
    this.calls.push(`put ${a}`);
  }
  async deleteAccount(a: Address) {
    this.calls.push(`delete ${a}`);
  }
  async getAccount(a: Address) {
    return this.empty.has(a.toString()) ? new Account() : new Account(1n);
  }
}

interface JournalLike {
  accessList?: Map<string, Set<string>>;
  startReportingAccessList(): void;
  putAccount(a: Address, acc: Account | undefined): Promise<void>;
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
  cleanJournal(): void;
  cleanup(): Promise<void>;
  addAlwaysWarmAddress(a: string, report?: boolean): void;
  addAlwaysWarmSlot(a: string, s: string, report?: boolean): void;
  isWarmedAddress(a: Uint8Array): boolean;
  addWarmedAddress(a: Uint8Array): void;
  isWarmedStorage(a: Uint8Array, s: Uint8Array): boolean;
  addWarmedStorage(a: Uint8Array, s: Uint8Array): void;
}

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const ADDRESSES = [1, 3, 0xc0ffe, 0xdead, 0xbeef, 2 ** 40].map((n) => {
  const b = new Uint8Array(20);
  new DataView(b.buffer).setBigUint64(12, BigInt(n));
  return b;
});
const SLOTS = [0, 1, 2, 255, 2 ** 33].map((n) => {
  const b = new Uint8Array(32);
  new DataView(b.buffer).setBigUint64(24, BigInt(n));
  return b;
});
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Everything observable of a journal. */
function snapshot(j: JournalLike): string {
  const out: string[] = [];
  for (const a of ADDRESSES) {
    out.push(`${hex(a)}:${j.isWarmedAddress(a)}`);
    for (const s of SLOTS) out.push(`${j.isWarmedStorage(a, s)}`);
  }
  if (j.accessList !== undefined)
    for (const [a, slots] of [...j.accessList].sort()) out.push(`al ${a} ${[...slots].sort().join(',')}`);
  return out.join(' ');
}

async function runSequence(seed: number, make: (sm: RecordingState) => JournalLike): Promise<string[]> {
  const rng = mulberryRng(seed);
  const sm = new RecordingState();
  const j = make(sm);
  const trace: string[] = [];
  let depth = 0;
  for (let tx = 0; tx < 4; tx++) {
    j.cleanJournal();
    if (rng.int(3) === 0) j.startReportingAccessList();
    for (let step = 0; step < 60; step++) {
      const a = rng.pick(ADDRESSES);
      const s = rng.pick(SLOTS);
      switch (rng.int(10)) {
        case 0:
          j.addAlwaysWarmAddress(rng.int(2) === 0 ? hex(a) : `0x${hex(a)}`, rng.int(2) === 0);
          break;
        case 1:
          j.addAlwaysWarmSlot(hex(a), hex(s), rng.int(2) === 0);
          break;
        case 2:
          if (!j.isWarmedAddress(a)) j.addWarmedAddress(a);
          break;
        case 3:
          if (!j.isWarmedStorage(a, s)) j.addWarmedStorage(a, s);
          break;
        case 4:
          if (rng.int(3) === 0) sm.empty.add(new Address(a).toString());
          await j.putAccount(new Address(a), new Account());
          break;
        case 5:
        case 6:
          await j.checkpoint();
          depth++;
          break;
        case 7:
          if (depth > 0) {
            await j.commit();
            depth--;
          }
          break;
        default:
          if (depth > 0) {
            await j.revert();
            depth--;
          }
      }
      trace.push(snapshot(j));
    }
    while (depth > 0) {
      if (rng.int(2) === 0) await j.commit();
      else await j.revert();
      depth--;
    }
    await j.cleanup();
    trace.push(sm.calls.join(';'));
  }
  return trace;
}

describe('WarmJournal', () => {
  it("answers as @ethereumjs/evm's Journal on random sequences of warms, touches, checkpoints and reverts", async () => {
    // ethereumjs's Journal as shipped (its class is not exported: the one a plain EVM builds).
    const Reference = (await createEVM({ common })).journal.constructor as new (sm: unknown, c: Common) => JournalLike;
    expect(Reference).not.toBe(WarmJournal);
    for (let seed = 1; seed <= 200; seed++) {
      const ref = await runSequence(seed, (sm) => new Reference(sm, common));
      const tern = await runSequence(seed, (sm) => new WarmJournal(sm as never, common) as unknown as JournalLike);
      expect(tern, `seed ${seed}`).toEqual(ref);
    }
  });

  it('answers by word as by bytes', () => {
    const j = new WarmJournal(new RecordingState() as never);
    const [a, b] = ADDRESSES as [Uint8Array, Uint8Array];
    const s = SLOTS[3] as Uint8Array;
    expect(j.warmAccount(addressKey(a))).toBe(false);
    expect(j.warmAccount(addressKey(a))).toBe(true);
    expect(j.isWarmedAddress(a)).toBe(true);
    expect(j.isWarmSlot(addressKey(b), slotKey(s))).toBe(false);
    expect(j.warmSlot(addressKey(b), slotKey(s))).toBe(false);
    expect(j.isWarmedStorage(b, s)).toBe(true);
    // A 31-byte slot is not the 32-byte slot of the same value (ethereumjs's hex keys tell them apart).
    expect(j.isWarmedStorage(b, s.subarray(1))).toBe(false);
    expect(j.isWarmedAddress(a.subarray(1))).toBe(false);
  });

  it("is the journal of tern's EVM (its frames run on tern's interpreter only while it is)", async () => {
    const evm = createTernEVM({ common });
    expect(evm.journal).toBeInstanceOf(WarmJournal);
  });
});
