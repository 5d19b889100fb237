import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genesisHeader, parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { validateHeader } from '../../../../../src/main/exec/chain/validateHeader.js';
import { decodeHeader, type Header } from '../../../../../src/main/primitives/block/header.js';
import { asList, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const genesis = parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8')));
const headers: Header[] = [genesisHeader(genesis)];
for (const raw of rlpItems(readFileSync(join(TESTS, 'chain.rlp')))) {
  headers.push(decodeHeader(rlpEncode(asList(rlpDecode(raw), 'block')[0] as Uint8Array[])));
}

describe('header validation', () => {
  it('accepts every header of the execution-apis chain against its parent', () => {
    for (let i = 1; i < headers.length; i++)
      validateHeader(genesis.config, headers[i] as Header, headers[i - 1] as Header);
  });

  const parent = headers[4] as Header;
  const child = headers[5] as Header;
  it.each([
    ['number', { number: child.number + 1n }, /invalid block number/],
    ['timestamp', { timestamp: parent.timestamp }, /invalid timestamp/],
    ['extraData', { extraData: new Uint8Array(33) }, /extra-data too long/],
    ['gas limit jump', { gasLimit: parent.gasLimit + parent.gasLimit / 1024n }, /invalid gas limit/],
    ['gas used over limit', { gasUsed: child.gasLimit + 1n }, /invalid gasUsed/],
    ['base fee', { baseFeePerGas: (child.baseFeePerGas ?? 0n) + 1n }, /invalid baseFee/],
    ['difficulty', { difficulty: 1n }, /invalid difficulty/],
    ['withdrawals root missing', { withdrawalsRoot: undefined }, /missing withdrawalsHash/],
    ['excess blob gas', { excessBlobGas: 131072n }, /invalid excessBlobGas/],
    ['blob gas used not a multiple', { blobGasUsed: 1n }, /not a multiple/],
    ['requests hash before Prague', { requestsHash: new Uint8Array(32) }, /requestsHash/],
  ] as const)('rejects a wrong %s', (_name, change, message) => {
    expect(() => validateHeader(genesis.config, { ...child, ...change } as Header, parent)).toThrow(message);
  });
});
