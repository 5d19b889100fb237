// Every bundled network that ships its allocations builds the genesis block the registry records (genesis.l2.hash):
// the alloc, the op-geth chain config (which forks shape the header) and the header fields all have to be right.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { genesisHeader } from '../../../../../src/main/exec/chain/genesis.js';
import {
  loadNetworkGenesis,
  networkChainConfig,
  registryGenesisHash,
} from '../../../../../src/main/exec/rollup/superchain.js';
import { migratedStateHash, registryNetworkNames } from '../../../../../src/main/networks/registry.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('bundled network genesis blocks', () => {
  const names = registryNetworkNames();
  const withAlloc = names.filter((n) => migratedStateHash(n) === undefined);

  it('hash to the registry’s genesis.l2.hash for all 57 chains that ship allocations', () => {
    expect(withAlloc.length).toBe(57);
    const wrong: string[] = [];
    for (const name of withAlloc) {
      const hash = hex(headerHash(genesisHeader(loadNetworkGenesis(name))));
      if (hash !== registryGenesisHash(name)) wrong.push(`${name}: ${hash} != ${registryGenesisHash(name)}`);
    }
    expect(wrong).toEqual([]);
  }, 600_000);

  it('refuse to build a migrated chain’s genesis, saying how to start it', () => {
    expect(() => loadNetworkGenesis('op-mainnet')).toThrow(UsageError);
    expect(() => loadNetworkGenesis('op-mainnet')).toThrow(/special sync.*state root 0xeddb4c17.*tern-exec init/);
  });

  it('give every chain op-geth’s registry chain config', () => {
    const c = networkChainConfig('unichain-mainnet');
    expect(c.chainId).toBe(130n);
    expect(c.times.canyonTime).toBe(0n);
    expect(c.times.shanghaiTime).toBe(0n);
    expect(c.times.holoceneTime).toBe(1736445601n);
    expect(c.times.isthmusTime).toBe(1746806401n);
    expect(c.times.pragueTime).toBe(1746806401n);
    expect(c.blocks.bedrockBlock).toBe(0n);
    expect(c.optimism).toEqual({ eip1559Elasticity: 6n, eip1559Denominator: 50n, eip1559DenominatorCanyon: 250n });
    for (const name of names) expect(networkChainConfig(name).optimism, name).toBeDefined();
  });
});
