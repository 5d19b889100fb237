// --mainnet/--sepolia/--holesky/--hoodi: the genesis blocks built from @ethereumjs/genesis's allocations and geth's
// genesis fields hash to geth's known genesis hashes, and the chain configs are geth v1.16's.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { genesisHeader } from '../../../../../src/main/exec/chain/genesis.js';
import { loadL1Genesis } from '../../../../../src/main/exec/chain/l1Genesis.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { setupChainConfig } from '../../../../../src/main/exec/rollup/chainSetup.js';
import { L1_NETWORKS, L1_PRESETS } from '../../../../../src/main/networks/l1.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

/** geth's params.<Network>GenesisHash. */
const GETH_GENESIS_HASHES = {
  mainnet: '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
  sepolia: '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9',
  holesky: '0xb5f7f912443c940f21fd611f12828d75b534364ed9e95ca4e307729a4661bde4',
  hoodi: '0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b',
};

describe('L1 network presets', () => {
  it.each(L1_NETWORKS)('%s genesis hashes to geth’s', (name) => {
    expect(hex(headerHash(genesisHeader(loadL1Genesis(name))))).toBe(GETH_GENESIS_HASHES[name]);
    expect(L1_PRESETS[name].genesisHash).toBe(GETH_GENESIS_HASHES[name]);
  });

  it('have geth v1.16’s chain ids, network ids and fork schedules', () => {
    expect(L1_NETWORKS.map((n) => [L1_PRESETS[n].chainId, L1_PRESETS[n].networkId])).toEqual([
      [1n, 1n],
      [11155111n, 11155111n],
      [17000n, 17000n],
      [560048n, 560048n],
    ]);
    const mainnet = parseChainConfig(L1_PRESETS.mainnet.config);
    expect(mainnet.blocks).toMatchObject({ homesteadBlock: 1150000n, daoForkBlock: 1920000n, londonBlock: 12965000n });
    expect(mainnet.terminalTotalDifficulty).toBe(58750000000000000000000n);
    expect(mainnet.times).toMatchObject({
      shanghaiTime: 1681338455n,
      cancunTime: 1710338135n,
      pragueTime: 1746612311n,
    });
    expect(mainnet.times.osakaTime).toBe(1764798551n);
    expect(mainnet.raw.bpo2Time).toBe(1767747671);
    expect(mainnet.blobSchedule.bpo2).toEqual({ target: 14, max: 21, baseFeeUpdateFraction: 11684671n });
    expect(mainnet.depositContractAddress).toBe('0x00000000219ab540356cbb839cbe05303d7705fa');
    const sepolia = parseChainConfig(L1_PRESETS.sepolia.config);
    expect(sepolia.blocks.mergeNetsplitBlock).toBe(1735371n);
    expect(sepolia.terminalTotalDifficulty).toBe(17000000000000000n);
    expect(parseChainConfig(L1_PRESETS.hoodi.config).times.cancunTime).toBe(0n);
    expect(parseChainConfig(L1_PRESETS.holesky.config).times.pragueTime).toBe(1740434112n);
    for (const n of L1_NETWORKS) {
      expect(L1_PRESETS[n].bootnodes.length, n).toBeGreaterThan(1);
      for (const b of L1_PRESETS[n].bootnodes) expect(b).toMatch(/^enode:\/\/[0-9a-f]{128}@[\d.]+:30303$/);
      expect(L1_PRESETS[n].dnsDiscovery).toBe(
        `enrtree://AKA3AM6LPBYEUDMVNU3BSVQJ5AD45Y7YPOHJLEF6W26QOE4VTUDPE@all.${n}.ethdisco.net`,
      );
    }
  });

  it('writes the network’s genesis into an empty database and refuses another chain’s', async () => {
    const db = await openDatabase({ engine: 'memory' });
    try {
      await setupChainConfig(db, { l1Network: 'hoodi', overrides: {}, superchainUpgrades: true }, { logger });
      const store = new ChainStore(db);
      expect(hex(store.genesisHash() as Uint8Array)).toBe(GETH_GENESIS_HASHES.hoodi);
      expect(store.config().chainId).toBe(560048n);
      const err = await setupChainConfig(
        db,
        { l1Network: 'sepolia', overrides: {}, superchainUpgrades: true },
        { logger },
      ).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/--sepolia: database contains incompatible genesis/);
    } finally {
      await db.close();
    }
  });
});
