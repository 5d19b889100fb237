import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeHeader,
  encodeHeader,
  headerHash,
  headerToJson,
} from '../../../../../src/main/primitives/block/header.js';
import { asList, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('block headers', () => {
  const chain = readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp'));
  const blocks = [...rlpItems(chain)];

  it('splits chain.rlp into its 20 blocks', () => expect(blocks.length).toBe(20));

  it('round-trips every header of chain.rlp byte for byte and links each hash to the next parentHash', () => {
    let prevHash: Uint8Array | undefined;
    for (const raw of blocks) {
      const headerRlp = rlpEncode(asList(rlpDecode(raw), 'block')[0] as Uint8Array[]);
      const header = decodeHeader(headerRlp);
      expect(hex(encodeHeader(header))).toBe(hex(headerRlp));
      if (prevHash) expect(hex(header.parentHash)).toBe(hex(prevHash));
      prevHash = headerHash(header);
    }
  });

  it('matches the hashes in the execution-apis block responses', () => {
    const io = readFileSync(join(FIXTURES, 'execution-apis/tests/eth_getBlockByNumber/get-block-n.io'), 'utf8');
    const response = JSON.parse((io.split('\n').find((l) => l.startsWith('<<')) as string).slice(3)) as {
      result: Record<string, string>;
    };
    const n = Number(response.result.number);
    const header = decodeHeader(rlpEncode(asList(rlpDecode(blocks[n - 1] as Uint8Array), 'block')[0] as Uint8Array[]));
    const json = headerToJson(header);
    for (const [k, v] of Object.entries(json)) expect([k, v]).toEqual([k, response.result[k]]);
  });

  it('rejects malformed headers with a reason', () => {
    expect(() => decodeHeader(rlpEncode([new Uint8Array(32)]))).toThrow(/header has 1 fields/);
    const good = decodeHeader(rlpEncode(asList(rlpDecode(blocks[0] as Uint8Array), 'block')[0] as Uint8Array[]));
    expect(() => encodeHeader({ ...good, baseFeePerGas: undefined, withdrawalsRoot: new Uint8Array(32) })).toThrow(
      /no baseFeePerGas/,
    );
  });
});

describe('blocks', async () => {
  const { decodeBlock, encodeBlock, transactionsRoot, unclesHash, withdrawalsRoot } = await import(
    '../../../../../src/main/primitives/block/block.js'
  );
  const chain = readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp'));

  it('round-trips every block of chain.rlp and recomputes its roots', () => {
    let txs = 0;
    for (const raw of rlpItems(chain)) {
      const block = decodeBlock(raw);
      expect(hex(encodeBlock(block))).toBe(hex(raw));
      expect(hex(transactionsRoot(block.transactions))).toBe(hex(block.header.transactionsRoot));
      expect(hex(unclesHash(block.uncles))).toBe(hex(block.header.uncleHash));
      expect(hex(withdrawalsRoot(block.withdrawals ?? []))).toBe(hex(block.header.withdrawalsRoot as Uint8Array));
      txs += block.transactions.length;
    }
    expect(txs).toBeGreaterThan(20);
  });
});
