// eth_getBlockReceipts / eth_getTransactionReceipt shapes against geth's answers (execution-apis fixtures), built
// from the consensus receipts geth gives in debug_getRawReceipts for the same blocks.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { blobBaseFee } from '../../../../../src/main/primitives/block/fees.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { DEFAULT_BLOB_SCHEDULE } from '../../../../../src/main/primitives/chainConfig.js';
import { blockReceiptsToJson } from '../../../../../src/main/primitives/receipt/json.js';
import { decodeReceipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { recoverSender } from '../../../../../src/main/protocol/senders/recover.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const lines = (file: string) => readFileSync(join(TESTS, file), 'utf8').split('\n');
const reply = (file: string) => JSON.parse((lines(file).find((l) => l.startsWith('<<')) as string).slice(3));
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

describe('receipt JSON', () => {
  const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
  const raw = reply('debug_getRawReceipts/get-block-n.io').result as string[];
  const number = Number(
    JSON.parse((lines('debug_getRawReceipts/get-block-n.io').find((l) => l.startsWith('>>')) as string).slice(3))
      .params[0],
  );
  const block = blocks[number - 1] as (typeof blocks)[number];
  const json = blockReceiptsToJson({
    blockHash: headerHash(block.header),
    blockNumber: block.header.number,
    baseFee: block.header.baseFeePerGas,
    blobBaseFee: blobBaseFee(block.header.excessBlobGas ?? 0n, DEFAULT_BLOB_SCHEDULE.cancun as never),
    txs: block.transactions.map(decodeTransaction),
    senders: block.transactions.map(recoverSender),
    receipts: raw.map((r) => decodeReceipt(bytes(r))),
  });
  const byHash = new Map(json.map((r) => [r.transactionHash as string, r]));

  for (const file of readdirSync(join(TESTS, 'eth_getTransactionReceipt'))) {
    const result = reply(`eth_getTransactionReceipt/${file}`).result as Record<string, unknown> | null;
    if (!result || Number(result.blockNumber) !== number) continue;
    it(`matches geth: eth_getTransactionReceipt/${file}`, () => {
      expect(byHash.get(result.transactionHash as string)).toEqual(result);
    });
  }

  it('covers at least one fixture receipt of that block', () => {
    const covered = readdirSync(join(TESTS, 'eth_getTransactionReceipt')).filter(
      (f) => Number(reply(`eth_getTransactionReceipt/${f}`).result?.blockNumber) === number,
    );
    expect(covered.length).toBeGreaterThan(0);
  });
});
