import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { setupChainConfig } from '../../../../../src/main/exec/rollup/chainSetup.js';
import { superchainConfigForChainId } from '../../../../../src/main/exec/rollup/superchain.js';
import { FIXTURES } from '../../../../helpers/paths.js';
import { buildTestChain, type TestChain } from '../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const TOML = parseToml(readFileSync(join(FIXTURES, 'superchain/op-sepolia.toml'), 'utf8')) as {
  chain_id: number;
  hardforks: Record<string, number>;
  genesis: { l2: { hash: string } };
  optimism: Record<string, number>;
};

describe('--stack-network', () => {
  it('writes the bundled OP Sepolia genesis into an empty database, hashing to the registry’s', async () => {
    const db = await openDatabase({ engine: 'memory' });
    try {
      await setupChainConfig(db, { network: 'op-sepolia', overrides: {}, superchainUpgrades: true }, { logger });
      const store = new ChainStore(db);
      expect(hex(store.genesisHash() as Uint8Array)).toBe(TOML.genesis.l2.hash);
      const c = store.config();
      expect(c.chainId).toBe(BigInt(TOML.chain_id));
      // op-geth's registry config: L1 forks ride on their OP forks.
      expect(c.times.shanghaiTime).toBe(BigInt(TOML.hardforks.canyon_time as number));
      expect(c.times.cancunTime).toBe(BigInt(TOML.hardforks.ecotone_time as number));
      expect(c.times.pragueTime).toBe(BigInt(TOML.hardforks.isthmus_time as number));
      for (const f of ['canyon', 'ecotone', 'fjord', 'granite', 'holocene', 'isthmus'])
        expect(c.times[`${f}Time` as 'canyonTime'], f).toBe(BigInt(TOML.hardforks[`${f}_time`] as number));
      expect(c.optimism?.eip1559DenominatorCanyon).toBe(BigInt(TOML.optimism.eip1559_denominator_canyon as number));
      // A second start on the same database checks the genesis and keeps it.
      await setupChainConfig(db, { network: 'op-sepolia', overrides: {}, superchainUpgrades: true }, { logger });
      expect(hex(new ChainStore(db).genesisHash() as Uint8Array)).toBe(TOML.genesis.l2.hash);
      // An override of a future fork lands in the stored config.
      await setupChainConfig(
        db,
        { network: 'op-sepolia', overrides: { jovian: 4_000_000_000n }, superchainUpgrades: true },
        { logger },
      );
      expect(new ChainStore(db).config().times.jovianTime).toBe(4_000_000_000n);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('refuses to create a migrated chain (state root only in the registry), saying how to start it', async () => {
    for (const network of ['op-mainnet', 'boba-mainnet', 'boba-sepolia']) {
      const db = await openDatabase({ engine: 'memory' });
      try {
        const err = await setupChainConfig(db, { network, overrides: {}, superchainUpgrades: true }, { logger }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(UsageError);
        expect((err as Error).message).toMatch(
          new RegExp(`--stack-network ${network} needs special sync: .*migrated database.*tern-exec init --datadir`),
        );
        expect(new ChainStore(db).genesisHash()).toBeUndefined();
      } finally {
        await db.close();
      }
    }
  });

  it('gives OP Mainnet op-geth’s chain config, with its pre-Bedrock history', () => {
    const c = superchainConfigForChainId(10n);
    expect(c?.blocks.berlinBlock).toBe(3950000n);
    for (const f of ['londonBlock', 'arrowGlacierBlock', 'grayGlacierBlock', 'mergeNetsplitBlock', 'bedrockBlock'])
      expect(c?.blocks[f as 'londonBlock'], f).toBe(105235063n);
    expect(c?.blocks.istanbulBlock).toBe(0n);
    expect(c?.times.regolithTime).toBe(0n);
    expect(c?.times.shanghaiTime).toBe(1704992401n);
  });

  it('refuses a database that holds another chain', async () => {
    const chain = await buildTestChain(logger);
    try {
      const err = await setupChainConfig(
        chain.db,
        { network: 'op-sepolia', overrides: {}, superchainUpgrades: true },
        { logger },
      ).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/database contains incompatible genesis/);
    } finally {
      await chain.db.close();
    }
  }, 120_000);

  it('knows the registry config of registry chain ids only', () => {
    expect(superchainConfigForChainId(11155420n)?.times.isthmusTime).toBe(1744905600n);
    expect(superchainConfigForChainId(8453n)?.times.isthmusTime).toBe(1746806401n);
    expect(superchainConfigForChainId(1n)).toBeUndefined();
  });
});

describe('--override.* on a stored chain', () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await buildTestChain(logger);
  }, 120_000);
  afterAll(async () => {
    await chain.db.close();
  });

  it('writes a future fork to the stored config', async () => {
    const before = new ChainStore(chain.db).config();
    expect(before.times.osakaTime).toBeUndefined();
    await setupChainConfig(chain.db, { overrides: { osaka: 9_000_000_000n }, superchainUpgrades: true }, { logger });
    expect(new ChainStore(chain.db).config().times.osakaTime).toBe(9_000_000_000n);
  });

  it('refuses an override that would change imported blocks, leaving the config as it was', async () => {
    const before = new ChainStore(chain.db).config();
    expect(before.times.cancunTime).toBe(0n);
    const err = await setupChainConfig(
      chain.db,
      { overrides: { cancun: 10n }, superchainUpgrades: true },
      { logger },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(
      /^mismatching Cancun fork timestamp in database \(have timestamp 0, want timestamp 10/,
    );
    expect(new ChainStore(chain.db).config().times.cancunTime).toBe(0n);
  });
});
