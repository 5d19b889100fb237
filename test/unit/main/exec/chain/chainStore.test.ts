import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const GENESIS = JSON.parse(readFileSync(join(FIXTURES, 'execution-apis/tests/genesis.json'), 'utf8'));
const GENESIS_HASH = '0x414c637788e37e9f65ed2c6ee962d32aeea39722ad50ee764e712fabebd69118';

describe('ChainStore genesis', () => {
  const datadir = mkdtempSync(join(tmpdir(), 'tern-chain-'));
  const dbs: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const db of dbs) await db.close();
  });

  it('writes block 0 and its state; the committed state root equals the one-pass root (the genesis hash)', async () => {
    const db = await openDatabase({ datadir, engine: 'lmdb' });
    dbs.push(db);
    const store = new ChainStore(db);
    const { hash, created } = await store.initGenesis(parseGenesis(GENESIS));
    expect(created).toBe(true);
    expect(hex(hash)).toBe(GENESIS_HASH);
    expect(hex(store.head().hash)).toBe(GENESIS_HASH);
    expect(store.headerByNumber(0n)?.number).toBe(0n);
    expect(store.blockByNumber(0n)?.transactions).toEqual([]);
    const [addr, account] = Object.entries(GENESIS.alloc as Record<string, { balance: string; code?: string }>).find(
      ([, a]) => a.code !== undefined,
    ) as [string, { balance: string; code: string }];
    const reader = store.stateReader();
    const rec = reader.getAccount(Buffer.from(addr.replace(/^0x/, ''), 'hex'));
    expect(rec?.balance).toBe(BigInt(account.balance));
    expect(hex(reader.getCode(rec?.codeHash as Uint8Array))).toBe(account.code.toLowerCase());
  });

  it('is idempotent for the same genesis and survives a reopen', async () => {
    const db = await openDatabase({ datadir, engine: 'lmdb' });
    dbs.push(db);
    const store = new ChainStore(db);
    expect(hex(store.head().hash)).toBe(GENESIS_HASH);
    const again = await store.initGenesis(parseGenesis(GENESIS));
    expect(again.created).toBe(false);
  });

  it('refuses a different genesis in the same database', async () => {
    const db = await openDatabase({ engine: 'memory' });
    dbs.push(db);
    const store = new ChainStore(db);
    await store.initGenesis(parseGenesis(GENESIS));
    await expect(store.initGenesis(parseGenesis({ ...GENESIS, extraData: '0x01' }))).rejects.toThrow(
      /different genesis/,
    );
  });
});
