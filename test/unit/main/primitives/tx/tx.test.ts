// Decoding and the RPC shape, checked against geth's answers in the execution-apis fixtures.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBlock, transactionHash } from '../../../../../src/main/primitives/block/block.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { txToJson } from '../../../../../src/main/primitives/tx/json.js';
import { recoverSender } from '../../../../../src/main/protocol/senders/recover.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('transactions', () => {
  const byHash = new Map<string, Record<string, unknown>>();
  for (const raw of rlpItems(readFileSync(join(TESTS, 'chain.rlp')))) {
    const block = decodeBlock(raw);
    block.transactions.forEach((t, index) => {
      const tx = decodeTransaction(t);
      expect(hex(tx.hash)).toBe(hex(transactionHash(t)));
      const at = {
        blockHash: headerHash(block.header),
        blockNumber: block.header.number,
        index,
        baseFee: block.header.baseFeePerGas,
      };
      byHash.set(hex(tx.hash), txToJson(tx, recoverSender(t), at));
    });
  }

  const dir = join(TESTS, 'eth_getTransactionByHash');
  for (const file of readdirSync(dir)) {
    const io = readFileSync(join(dir, file), 'utf8');
    const request = JSON.parse((io.split('\n').find((l) => l.startsWith('>>')) as string).slice(3));
    const expected = JSON.parse((io.split('\n').find((l) => l.startsWith('<<')) as string).slice(3)).result;
    it(`answers like geth: ${file}`, () => {
      expect(byHash.get(request.params[0]) ?? null).toEqual(expected);
    });
  }

  it('rejects malformed encodings with a reason', () => {
    expect(() => decodeTransaction(new Uint8Array(0))).toThrow(/empty transaction/);
    expect(() => decodeTransaction(Uint8Array.of(5, 0xc0))).toThrow(/type 5 not supported/);
    expect(() => decodeTransaction(Uint8Array.of(2, 0xc0))).toThrow(/has 0 fields/);
  });
});
