// Block bodies as stored beside their headers: encodeBody writes exactly the body fields of the block's consensus
// encoding, checked on every block of the execution-apis test chain (legacy and typed transactions, withdrawals).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBlock, decodeBody, encodeBlock, encodeBody } from '../../../../../src/main/primitives/block/block.js';
import { asList, type RlpInput, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('encodeBody', () => {
  it('writes the body fields of each block of the execution-apis chain byte for byte', () => {
    const data = readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp'));
    let blocks = 0;
    let txs = 0;
    for (const raw of rlpItems(data)) {
      const block = decodeBlock(raw);
      const body = encodeBody(block);
      const want = rlpEncode(asList(rlpDecode(raw), 'block').slice(1) as RlpInput[]);
      expect(hex(body)).toBe(hex(want));
      expect(hex(encodeBlock(block))).toBe(hex(raw));
      const back = decodeBody(body);
      expect(back.transactions.map(hex)).toEqual(block.transactions.map(hex));
      expect(hex(encodeBody(back))).toBe(hex(body));
      blocks++;
      txs += block.transactions.length;
    }
    expect(blocks).toBeGreaterThan(10);
    expect(txs).toBeGreaterThan(10);
  });
});
