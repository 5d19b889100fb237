// Deposit receipts as op-geth encodes them (core/types/receipt.go, receipt_test.go): consensus form with the
// optional depositNonce/depositReceiptVersion, the receipts-root form that leaves the nonce out before Canyon,
// and the database form.
import { describe, expect, it } from 'vitest';
import { logsBloom } from '../../../../../src/main/primitives/receipt/bloom.js';
import {
  decodeReceipt,
  decodeStoredReceipt,
  encodeReceipt,
  encodeReceiptForRoot,
  encodeStoredReceipt,
  type Receipt,
} from '../../../../../src/main/primitives/receipt/receipt.js';
import { orderedTrieRoot } from '../../../../../src/main/primitives/trie/root.js';

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const addr = (h: string) => bytes(h.padStart(40, '0'));
const word = (h: string) => bytes(h.padStart(64, '0'));

// TestBedrockDepositReceiptUnchanged
// The test leaves the bloom unset (zero), so the vector carries a zero bloom.
const BEDROCK_RLP =
  '7ef90156a003000000000000000000000000000000000000000000000000000000000000000ab90100' +
  '0'.repeat(512) +
  'f0d7940000000000000000000000000000000000000033c001d7940000000000000000000000000000000000000333c002';

function opGethDeposit(extra: Partial<Receipt>): Receipt {
  const logs = [
    { address: addr('11'), topics: [word('dead'), word('beef')], data: bytes('0100ff') },
    { address: addr('0111'), topics: [word('dead'), word('beef')], data: bytes('0100ff') },
  ];
  return { type: 0x7e, status: 0, cumulativeGasUsed: 1n, logsBloom: logsBloom(logs), logs, ...extra };
}

describe('deposit receipts', () => {
  it('encodes a Bedrock deposit receipt (post-state root, no nonce) as op-geth', () => {
    const logs = [
      { address: addr('33'), topics: [], data: Uint8Array.of(1) },
      { address: addr('0333'), topics: [], data: Uint8Array.of(2) },
    ];
    const r: Receipt = {
      type: 0x7e,
      status: 1,
      postState: word('03'.padEnd(64, '0')),
      cumulativeGasUsed: 10n,
      logsBloom: new Uint8Array(256),
      logs,
    };
    expect(BEDROCK_RLP.length).toBe(2 * 346);
    expect(hex(encodeReceipt(r))).toBe(BEDROCK_RLP);
    const back = decodeReceipt(bytes(BEDROCK_RLP));
    expect(back.depositNonce).toBeUndefined();
    expect(back.depositReceiptVersion).toBeUndefined();
    expect(hex(back.postState as Uint8Array)).toBe(hex(r.postState as Uint8Array));
  });

  it('round-trips nonce and version in the consensus form', () => {
    for (const extra of [
      { depositNonce: 1234n },
      { depositNonce: 1234n, depositReceiptVersion: 1n },
      { depositNonce: 0n },
    ]) {
      const r = opGethDeposit(extra);
      const back = decodeReceipt(encodeReceipt(r));
      expect(back.depositNonce).toBe(extra.depositNonce);
      expect(back.depositReceiptVersion).toBe((extra as { depositReceiptVersion?: bigint }).depositReceiptVersion);
    }
  });

  it('leaves a pre-Canyon deposit nonce out of the receipts-root encoding (TestReceiptEncodeIndexBugIsEnshrined)', () => {
    const regolith = opGethDeposit({ depositNonce: 1234n });
    const forRoot = encodeReceiptForRoot(regolith);
    expect(hex(forRoot)).not.toBe(hex(encodeReceipt(regolith)));
    // identical to a type-2 receipt apart from the type byte
    const asDynamic = encodeReceipt({ ...regolith, type: 2, depositNonce: undefined });
    expect(hex(forRoot.subarray(1))).toBe(hex(asDynamic.subarray(1)));
    expect(forRoot[0]).toBe(0x7e);

    const canyon = opGethDeposit({ depositNonce: 1234n, depositReceiptVersion: 1n });
    expect(hex(encodeReceiptForRoot(canyon))).toBe(hex(encodeReceipt(canyon)));
    const bumped = opGethDeposit({ depositNonce: 1235n, depositReceiptVersion: 1n });
    expect(hex(orderedTrieRoot([encodeReceiptForRoot(canyon)]))).not.toBe(
      hex(orderedTrieRoot([encodeReceiptForRoot(bumped)])),
    );
    expect(hex(orderedTrieRoot([encodeReceiptForRoot(regolith)]))).toBe(
      hex(orderedTrieRoot([encodeReceiptForRoot({ ...regolith, depositNonce: 99n })])),
    );
  });

  it('rejects trailing fields on non-deposit receipts', () => {
    const raw = encodeReceipt(opGethDeposit({ depositNonce: 1n }));
    const asDynamic = Uint8Array.from(raw);
    asDynamic[0] = 2;
    expect(() => decodeReceipt(asDynamic)).toThrow(/type-2 receipt has 5 fields/);
  });

  it('round-trips the database form, rebuilding the bloom', () => {
    for (const extra of [{}, { depositNonce: 7n }, { depositNonce: 7n, depositReceiptVersion: 1n }]) {
      const r = opGethDeposit(extra);
      const stored = encodeStoredReceipt(r);
      const back = decodeStoredReceipt(stored, 0x7e);
      expect(hex(encodeReceipt(back))).toBe(hex(encodeReceipt(r)));
    }
    // [status, cumulativeGasUsed, logs, nonce, version]: no type byte, no bloom
    const stored = encodeStoredReceipt(opGethDeposit({ depositNonce: 7n, depositReceiptVersion: 1n }));
    expect(stored[0]).toBeGreaterThanOrEqual(0xc0);
    expect(hex(stored).endsWith('0701')).toBe(true);
  });
});
