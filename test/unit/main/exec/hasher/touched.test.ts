// The prefetch's address reader against the full transaction decoder: every type in the execution-apis chain
// (legacy, access-list, dynamic-fee, blob, creations) plus deposits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { touchedAddresses, txAddresses } from '../../../../../src/main/exec/hasher/touched.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

function expected(raw: Uint8Array): string[] {
  const tx = decodeTransaction(raw);
  const out: string[] = [];
  if (tx.deposit !== undefined) out.push(hex(tx.deposit.from));
  if (tx.to !== undefined) out.push(hex(tx.to.bytes));
  return out;
}

describe('txAddresses', () => {
  it('reads the same `to` as the decoder for every transaction of the execution-apis chain', () => {
    const chain = readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp'));
    const types = new Set<number>();
    let creations = 0;
    for (const block of [...rlpItems(chain)].map(decodeBlock)) {
      for (const raw of block.transactions) {
        const got: Uint8Array[] = [];
        txAddresses(raw, got);
        expect(got.map(hex)).toEqual(expected(raw));
        types.add(decodeTransaction(raw).type);
        if (got.length === 0) creations++;
      }
    }
    expect(types.size).toBeGreaterThanOrEqual(3);
    expect(creations).toBeGreaterThan(0);
  });

  it('reads a deposit’s from and to, and ignores what does not parse', () => {
    const from = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
    const to = Uint8Array.from({ length: 20 }, (_, i) => 40 - i);
    const deposit = encodeDepositTx({
      sourceHash: new Uint8Array(32).fill(7),
      from,
      to,
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    const got: Uint8Array[] = [];
    txAddresses(deposit, got);
    expect(got.map(hex)).toEqual([hex(from), hex(to)]);
    for (const junk of [new Uint8Array(0), Uint8Array.of(2), Uint8Array.of(0xf9, 0xff), Uint8Array.of(9, 0xc0)]) {
      const none: Uint8Array[] = [];
      txAddresses(junk, none);
      expect(none).toEqual([]);
    }
    // Senders and recipients, each once.
    expect(touchedAddresses([deposit, deposit], [from, to]).map(hex)).toEqual([hex(from), hex(to)]);
  });
});
