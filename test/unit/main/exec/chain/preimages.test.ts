// --vmdebug and --cache.preimages: keccak preimages recorded while importing the execution-apis chain, stored in
// the 'p' table and served by debug_preimage; with both flags off nothing is recorded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import {
  createPreimageRecorder,
  type PreimageOptions,
  PreimageRecorder,
} from '../../../../../src/main/exec/chain/preimages.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { TablePrefix, tablePrefix } from '../../../../../src/main/exec/db/schema.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { EXECUTION_APIS, serveTestChain } from '../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

async function importWith(opts: PreimageOptions) {
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db, { preimages: createPreimageRecorder(opts) });
  await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8'))));
  const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
  for (const raw of rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp'))))
    await importer.importBlock(decodeBlock(raw));
  const stored = new Map<string, Uint8Array>();
  for (const { key, value } of db.kv.iterate({ prefix: tablePrefix(TablePrefix.preimage) }))
    stored.set(hex(key.subarray(1)), value.slice());
  return { db, store, stored };
}

/** The senders and recipients of the chain's transactions (accounts every import writes). */
async function txAccounts(rpc: ReturnType<typeof serveTestChain>): Promise<string[]> {
  const out = new Set<string>();
  for (let n = 1; n <= 20; n++) {
    const b = (await rpc.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as {
      transactions: Array<{ from: string }>;
    };
    for (const tx of b.transactions) out.add(tx.from.toLowerCase());
  }
  return [...out];
}

describe('keccak preimages', () => {
  it('records nothing when both flags are off', async () => {
    expect(createPreimageRecorder({ sha3: false, trieKeys: false })).toBeUndefined();
    const { stored, db } = await importWith({ sha3: false, trieKeys: false });
    expect(stored.size).toBe(0);
    await db.close();
  }, 60_000);

  it('--cache.preimages stores the trie keys of written accounts and slots; debug_preimage serves them', async () => {
    const chain = await importWith({ sha3: false, trieKeys: true });
    const rpc = serveTestChain(chain);
    expect(chain.stored.size).toBeGreaterThan(0);
    for (const [hash, pre] of chain.stored) {
      expect(hex(keccak256(pre))).toBe(hash);
      expect([20, 32]).toContain(pre.length);
    }
    const senders = await txAccounts(rpc);
    expect(senders.length).toBeGreaterThan(0);
    for (const from of senders) {
      const hash = hex(keccak256(bytes(from)));
      expect(chain.stored.get(hash)).toBeDefined();
      expect(await rpc.call('debug_preimage', [hash])).toBe(from);
    }
    await expect(rpc.call('debug_preimage', [`0x${'ab'.repeat(32)}`])).rejects.toThrow(/unknown preimage/);
    await chain.db.close();
  }, 60_000);

  it('--vmdebug stores the inputs of the KECCAK256 opcode, not the trie keys', async () => {
    const sha3 = await importWith({ sha3: true, trieKeys: false });
    const keys = await importWith({ sha3: false, trieKeys: true });
    expect(sha3.stored.size).toBeGreaterThan(0);
    for (const [hash, pre] of sha3.stored) expect(hex(keccak256(pre))).toBe(hash);
    // Mapping slots are keccak(key ‖ slot): 64-byte inputs that only the opcode hashes.
    expect([...sha3.stored.values()].some((p) => p.length === 64)).toBe(true);
    const rpc = serveTestChain(sha3);
    for (const from of await txAccounts(rpc)) expect(sha3.stored.has(hex(keccak256(bytes(from))))).toBe(false);
    // Both on: the union.
    const both = await importWith({ sha3: true, trieKeys: true });
    expect(both.stored.size).toBe(new Set([...sha3.stored.keys(), ...keys.stored.keys()]).size);
    for (const c of [sha3, keys, both]) await c.db.close();
  }, 120_000);

  it('keeps preimages until the next commit and skips deleted accounts and zeroed slots', () => {
    const r = new PreimageRecorder({ sha3: true, trieKeys: true });
    const data = Uint8Array.of(1, 2, 3);
    const h = r.keccak256?.(data);
    expect(h && hex(h)).toBe(hex(keccak256(data)));
    expect(r.pending).toBe(1);
    const puts: Array<[string, string]> = [];
    const batch = { put: (k: Uint8Array, v: Uint8Array) => puts.push([hex(k), hex(v)]) } as never;
    const kept = `0x${'11'.repeat(20)}`;
    const gone = `0x${'22'.repeat(20)}`;
    const live = `0x${'33'.repeat(32)}`;
    const zero = `0x${'44'.repeat(32)}`;
    r.write(batch, {
      accounts: new Map([
        [
          kept,
          {
            storage: new Map([
              [live, 5n],
              [zero, 0n],
            ]),
          } as never,
        ],
        [gone, null],
      ]),
      codes: new Map(),
    });
    const written = new Map(puts.map(([k, v]) => [k.slice(4), v]));
    expect(puts.every(([k]) => k.startsWith('0x70'))).toBe(true);
    expect(written.get(hex(keccak256(data)).slice(2))).toBe(hex(data));
    expect(written.get(hex(keccak256(bytes(kept))).slice(2))).toBe(kept);
    expect(written.get(hex(keccak256(bytes(live))).slice(2))).toBe(live);
    expect(written.has(hex(keccak256(bytes(gone))).slice(2))).toBe(false);
    expect(written.has(hex(keccak256(bytes(zero))).slice(2))).toBe(false);
    expect(r.pending).toBe(0);
  });
});
