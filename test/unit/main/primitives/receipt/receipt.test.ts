import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeHeader } from '../../../../../src/main/primitives/block/header.js';
import { logsBloom, orBloom } from '../../../../../src/main/primitives/receipt/bloom.js';
import { decodeReceipt, encodeReceipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { asList, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { orderedTrieRoot } from '../../../../../src/main/primitives/trie/root.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

function response(file: string): unknown {
  const io = readFileSync(join(TESTS, file), 'utf8');
  return JSON.parse((io.split('\n').find((l) => l.startsWith('<<')) as string).slice(3)).result;
}

describe('receipts', () => {
  const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))];
  const raw = response('debug_getRawReceipts/get-block-n.io') as string[];
  const header = decodeHeader(rlpEncode(asList(rlpDecode(blocks[2] as Uint8Array), 'block')[0] as Uint8Array[]));

  it('round-trips geth raw receipts byte for byte', () => {
    expect(raw.length).toBeGreaterThan(0);
    for (const r of raw) expect(hex(encodeReceipt(decodeReceipt(bytes(r))))).toBe(r);
  });

  it('commits to the block receipts root, and their blooms OR to the header bloom', () => {
    expect(hex(orderedTrieRoot(raw.map(bytes)))).toBe(hex(header.receiptsRoot));
    const bloom = new Uint8Array(256);
    for (const r of raw) {
      const receipt = decodeReceipt(bytes(r));
      expect(hex(logsBloom(receipt.logs))).toBe(hex(receipt.logsBloom));
      orBloom(bloom, receipt.logsBloom);
    }
    expect(hex(bloom)).toBe(hex(header.logsBloom));
  });
});
