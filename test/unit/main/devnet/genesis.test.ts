import { describe, expect, it } from 'vitest';
import { accountFor, devAccounts } from '../../../../src/main/devnet/accounts.js';
import {
  bedrockCode,
  GAS_PRICE_ORACLE_IMPL_ADDRESS,
  genesisBlockId,
  L1_BLOCK_IMPL_ADDRESS,
  L1_PORTAL_ADDRESS,
  l1GenesisJson,
  l2GenesisJson,
  PREDEPLOYS,
  PROXY_IMPLEMENTATION_SLOT,
} from '../../../../src/main/devnet/genesis.js';
import { devnetRollupJson } from '../../../../src/main/devnet/rollupConfig.js';
import { ChainStore } from '../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../src/main/exec/chain/genesis.js';
import { openDatabase } from '../../../../src/main/exec/db/open.js';
import { isValidEcotoneScalar, systemConfigFromGenesis } from '../../../../src/main/node/derive/systemConfig.js';
import { decodeOpExtraData } from '../../../../src/main/primitives/op/eip1559.js';
import { isForkActive, parseRollupConfig } from '../../../../src/main/primitives/rollup/config.js';

const T = 1_700_000_000;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

async function initHash(json: Record<string, unknown>): Promise<string> {
  const db = await openDatabase({ engine: 'memory' });
  try {
    const { hash } = await new ChainStore(db).initGenesis(parseGenesis(JSON.parse(JSON.stringify(json))));
    return hex(hash);
  } finally {
    await db.close();
  }
}

describe('devnet accounts', () => {
  it('are the well-known anvil/hardhat accounts', () => {
    const a = devAccounts();
    expect(a).toHaveLength(10);
    expect(a[0]?.address).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(accountFor('batcher').address).toBe('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
  });
});

describe('devnet genesis files', () => {
  for (const jovian of [false, true]) {
    it(`L2 genesis hash equals what init writes, and is stable (jovian ${jovian})`, async () => {
      const opts = { chainId: 901n, timestamp: T, gasLimit: 30_000_000n, jovian, minBaseFee: 7n };
      const json = l2GenesisJson(opts);
      const id = genesisBlockId(json);
      expect(id.hash).toBe(await initHash(json));
      expect(genesisBlockId(l2GenesisJson(opts)).hash).toBe(id.hash);
      expect(genesisBlockId(l2GenesisJson({ ...opts, timestamp: T + 1 })).hash).not.toBe(id.hash);
      expect(id.time).toBe(T);
      const g = parseGenesis(json);
      expect(g.config.optimism).toEqual({
        eip1559Elasticity: 6n,
        eip1559Denominator: 50n,
        eip1559DenominatorCanyon: 250n,
      });
      expect(g.config.times.isthmusTime).toBe(0n);
      expect(g.config.times.jovianTime).toBe(jovian ? 0n : undefined);
      const extra = decodeOpExtraData(g.extraData);
      expect(extra.denominator).toBe(250n);
      expect(extra.elasticity).toBe(6n);
      expect(extra.minBaseFee).toBe(jovian ? 7n : undefined);
      for (const p of [PREDEPLOYS.l1Block, PREDEPLOYS.gasPriceOracle, PREDEPLOYS.l2ToL1MessagePasser]) {
        expect(g.alloc.get(p)?.code.length, p).toBeGreaterThan(100);
      }
      expect(g.alloc.get(PREDEPLOYS.beaconRoots)?.code.length).toBeGreaterThan(0);
      expect(g.alloc.get(PREDEPLOYS.historyStorage)?.code.length).toBeGreaterThan(0);
      expect(g.alloc.get(PREDEPLOYS.create2Deployer)?.code.length).toBe(1584);
      expect(g.alloc.get(accountFor('admin').address)?.balance).toBe(10n ** 22n);
    });
  }

  it('with Isthmus and Jovian scheduled: a Holocene genesis with the upgraded predeploys behind proxies', async () => {
    const opts = {
      chainId: 901n,
      timestamp: T,
      gasLimit: 30_000_000n,
      jovian: false,
      scheduled: { isthmus: 4, jovian: 8 },
    };
    const json = l2GenesisJson(opts);
    expect(genesisBlockId(json).hash).toBe(await initHash(json));
    const g = parseGenesis(json);
    expect(g.config.times.holoceneTime).toBe(0n);
    expect(g.config.times.isthmusTime).toBe(BigInt(T + 4));
    expect(g.config.times.pragueTime).toBe(BigInt(T + 4));
    expect(g.config.times.jovianTime).toBe(BigInt(T + 8));
    expect(decodeOpExtraData(g.extraData).minBaseFee).toBeUndefined();
    const proxy = bedrockCode('Proxy');
    for (const p of [PREDEPLOYS.l1Block, PREDEPLOYS.gasPriceOracle, PREDEPLOYS.operatorFeeVault]) {
      expect(hex(g.alloc.get(p)?.code ?? new Uint8Array()), p).toBe(proxy);
    }
    const impl = (p: string) => g.alloc.get(p)?.storage.get(PROXY_IMPLEMENTATION_SLOT);
    expect(impl(PREDEPLOYS.l1Block)).toBe(BigInt(L1_BLOCK_IMPL_ADDRESS));
    expect(impl(PREDEPLOYS.gasPriceOracle)).toBe(BigInt(GAS_PRICE_ORACLE_IMPL_ADDRESS));
    expect(impl(PREDEPLOYS.operatorFeeVault)).toBeUndefined();
    // Isthmus's upgrade transactions deploy the EIP-2935 contract; it must not be there before.
    expect(g.alloc.get(PREDEPLOYS.historyStorage)).toBeUndefined();
    expect(() => l2GenesisJson({ ...opts, jovian: true })).toThrow(/excludes/);
    expect(() => l2GenesisJson({ ...opts, scheduled: { isthmus: 0 } })).toThrow(/after genesis/);
    expect(() => l2GenesisJson({ ...opts, scheduled: { isthmus: 4, jovian: 2 } })).toThrow(/at or after Isthmus/);
  });

  it('L1 genesis deploys the portal and system config and hashes like init', async () => {
    const json = l1GenesisJson({ timestamp: T });
    expect(genesisBlockId(json).hash).toBe(await initHash(json));
    const g = parseGenesis(json);
    expect(g.config.chainId).toBe(1337n);
    expect(g.alloc.get(L1_PORTAL_ADDRESS)?.code.length).toBeGreaterThan(50);
  });
});

describe('devnet rollup.json', () => {
  it('parses with parseRollupConfig and matches the genesis files', () => {
    const l1 = genesisBlockId(l1GenesisJson({ timestamp: T }));
    const l2 = genesisBlockId(l2GenesisJson({ chainId: 901n, timestamp: T, gasLimit: 30_000_000n, jovian: false }));
    const batcher = accountFor('batcher').address;
    const json = devnetRollupJson({
      l1,
      l2,
      l1ChainId: 1337n,
      l2ChainId: 901n,
      blockTime: 2,
      batcher,
      gasLimit: 30_000_000n,
      jovian: false,
    });
    const cfg = parseRollupConfig(JSON.parse(JSON.stringify(json)));
    expect(cfg.genesis.l1).toEqual({ hash: l1.hash, number: 0 });
    expect(cfg.genesis.l2).toEqual({ hash: l2.hash, number: 0 });
    expect(cfg.genesis.l2Time).toBe(T);
    expect(cfg.blockTime).toBe(2);
    expect(cfg.depositContractAddress).toBe(L1_PORTAL_ADDRESS);
    expect(cfg.batchInboxAddress).toBe('0xff00000000000000000000000000000000000901');
    expect(isForkActive(cfg, 'isthmus', T)).toBe(true);
    expect(isForkActive(cfg, 'jovian', T)).toBe(false);
    const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
    expect(sc.batcherAddr).toBe(batcher);
    expect(isValidEcotoneScalar(sc.scalar)).toBe(true);
    expect(hex(sc.eip1559Params)).toBe('0x000000fa00000006');
    expect(sc.gasLimit).toBe(30_000_000n);
  });

  it('schedules Isthmus and Jovian after genesis when asked', () => {
    const l1 = genesisBlockId(l1GenesisJson({ timestamp: T }));
    const scheduled = { isthmus: 4, jovian: 8 };
    const l2 = genesisBlockId(
      l2GenesisJson({ chainId: 901n, timestamp: T, gasLimit: 30_000_000n, jovian: false, scheduled }),
    );
    const json = devnetRollupJson({
      l1,
      l2,
      l1ChainId: 1337n,
      l2ChainId: 901n,
      blockTime: 2,
      batcher: accountFor('batcher').address,
      gasLimit: 30_000_000n,
      jovian: false,
      scheduled,
    });
    const cfg = parseRollupConfig(JSON.parse(JSON.stringify(json)));
    expect(isForkActive(cfg, 'holocene', T)).toBe(true);
    expect(isForkActive(cfg, 'isthmus', T + 2)).toBe(false);
    expect(isForkActive(cfg, 'isthmus', T + 4)).toBe(true);
    expect(isForkActive(cfg, 'jovian', T + 6)).toBe(false);
    expect(isForkActive(cfg, 'jovian', T + 8)).toBe(true);
  });
});
