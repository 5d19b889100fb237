import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { genesisHeader, parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { headerHash, headerToJson } from '../../../../../src/main/primitives/block/header.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('genesis', () => {
  it('hashes the execution-apis genesis exactly as geth does (block 0 of the RPC fixtures)', () => {
    const json = JSON.parse(readFileSync(join(FIXTURES, 'execution-apis/tests/genesis.json'), 'utf8'));
    const io = readFileSync(join(FIXTURES, 'execution-apis/tests/eth_getBlockByNumber/get-genesis.io'), 'utf8');
    const expected = JSON.parse((io.split('\n').find((l) => l.startsWith('<<')) as string).slice(3)).result;
    const header = genesisHeader(parseGenesis(json));
    const got = headerToJson(header);
    for (const [k, v] of Object.entries(got)) expect([k, v]).toEqual([k, expected[k]]);
    expect(hex(headerHash(header))).toBe('0x414c637788e37e9f65ed2c6ee962d32aeea39722ad50ee764e712fabebd69118');
  });

  it("hashes OP Sepolia's genesis to the registry's genesis.l2.hash", () => {
    const toml = parseToml(readFileSync(join(FIXTURES, 'superchain/op-sepolia.toml'), 'utf8')) as {
      chain_id: number;
      genesis: { l2: { hash: string } };
    };
    const json = JSON.parse(
      gunzipSync(readFileSync(join(FIXTURES, 'superchain/op-sepolia-genesis.json.gz'))).toString(),
    );
    expect(json.config).toBeNull();
    // Bedrock at genesis: every block fork through London and the merge at 0; the time forks all come later.
    const config = parseChainConfig({
      chainId: toml.chain_id,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      arrowGlacierBlock: 0,
      grayGlacierBlock: 0,
      mergeNetsplitBlock: 0,
      bedrockBlock: 0,
      regolithTime: 0,
      terminalTotalDifficulty: 0,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
    const header = genesisHeader(parseGenesis(json, { config }));
    expect(hex(headerHash(header))).toBe(toml.genesis.l2.hash);
  });

  it('names the field that is wrong', () => {
    const config = { chainId: 1 };
    expect(() => parseGenesis({ config, gasLimit: 'lots' })).toThrow(/genesis: gasLimit is invalid/);
    expect(() => parseGenesis({ config, alloc: { xyz: { balance: '1' } } })).toThrow(/alloc address/);
    expect(() => parseGenesis({ config, mixHash: '0x12' })).toThrow(/mixHash \(32 bytes expected\)/);
    expect(() => parseGenesis({ config: {} })).toThrow(/no chainId/);
  });
});
