// The --dev genesis: geth's dev chain shape (chain id, forks through Prague at 0, system contracts, precompile
// balances, the funded developer) and a block 0 the chain store accepts with the Prague header fields.
import { describe, expect, it } from 'vitest';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { DEV_BALANCE, DEV_CHAIN_ID, devGenesis, SYSTEM_CONTRACTS } from '../../../../../src/main/exec/dev/genesis.js';
import { blobParamsAt, isTimeForkActive } from '../../../../../src/main/primitives/chainConfig.js';

const DEV = '0x71562b71999873db5b286df957af199ec94617f7';

describe('devGenesis', () => {
  const g = devGenesis({ developer: DEV, gasLimit: 11_500_000n, timestamp: 1_700_000_000n });

  it('activates every fork through Prague at genesis on chain 1337', () => {
    expect(g.config.chainId).toBe(BigInt(DEV_CHAIN_ID));
    for (const f of ['shanghaiTime', 'cancunTime', 'pragueTime'] as const)
      expect(isTimeForkActive(g.config, f, 0n)).toBe(true);
    expect(isTimeForkActive(g.config, 'osakaTime', 10n ** 12n)).toBe(false);
    expect(blobParamsAt(g.config, 0n)).toEqual({ target: 6, max: 9, baseFeeUpdateFraction: 5007716n });
    expect(g.config.blobSchedule.cancun).toEqual({ target: 3, max: 6, baseFeeUpdateFraction: 3338477n });
  });

  it('funds the developer and deploys the system contracts with nonce 1', () => {
    expect(g.alloc.get(DEV)?.balance).toBe(DEV_BALANCE);
    expect(Object.keys(SYSTEM_CONTRACTS)).toHaveLength(4);
    for (const [address, code] of Object.entries(SYSTEM_CONTRACTS)) {
      const a = g.alloc.get(address);
      expect(a?.nonce).toBe(1n);
      expect(`0x${Buffer.from(a?.code ?? []).toString('hex')}`).toBe(code);
      // Every system contract only accepts the system address for its system call.
      expect(code.startsWith('0x3373fffffffffffffffffffffffffffffffffffffffe14')).toBe(true);
    }
    expect(g.alloc.get(`0x${'01'.padStart(40, '0')}`)?.balance).toBe(1n);
    expect(g.alloc.get(`0x${'100'.padStart(40, '0')}`)?.balance).toBe(1n);
    expect(g.gasLimit).toBe(11_500_000n);
    expect(g.timestamp).toBe(1_700_000_000n);
  });

  it('writes a Prague block 0', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    await store.initGenesis(g);
    const h = store.head().header;
    expect(h.number).toBe(0n);
    expect(h.baseFeePerGas).toBe(1_000_000_000n);
    expect(h.excessBlobGas).toBe(0n);
    expect(h.parentBeaconBlockRoot).toEqual(new Uint8Array(32));
    expect(h.requestsHash).toBeDefined();
    expect(h.withdrawalsRoot).toBeDefined();
    expect(store.stateReader().getAccount(Uint8Array.from(Buffer.from(DEV.slice(2), 'hex')))?.balance).toBe(
      DEV_BALANCE,
    );
    await db.close();
  });
});
