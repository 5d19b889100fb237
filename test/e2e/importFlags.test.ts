// `tern-exec import` with the VM flags geth's import honours: --vmtrace (a live tracer over every imported
// transaction), --vmdebug and --cache.preimages (keccak preimages stored), and --nocompaction (accepted).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../../src/main/exec/db/open.js';
import { TablePrefix, tablePrefix } from '../../src/main/exec/db/schema.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { execTernExec } from '../helpers/execProcesses.js';
import { FIXTURES } from '../helpers/paths.js';

const APIS = join(FIXTURES, 'execution-apis/tests');
const work = mkdtempSync(join(tmpdir(), 'tern-import-flags-'));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** tern-exec with JSON logs. */
const exec = (args: string[]) => execTernExec(['--log.format', 'json', ...args]);

async function inspect(datadir: string): Promise<{ txs: number; preimages: Map<string, Uint8Array> }> {
  const db = await openDatabase({ datadir });
  try {
    const store = new ChainStore(db);
    let txs = 0;
    for (let n = 1n; n <= store.head().number; n++) txs += store.blockByNumber(n)?.transactions.length ?? 0;
    const preimages = new Map<string, Uint8Array>();
    for (const { key, value } of db.kv.iterate({ prefix: tablePrefix(TablePrefix.preimage) }))
      preimages.set(hex(key.subarray(1)), value.slice());
    return { txs, preimages };
  } finally {
    await db.close();
  }
}

describe('tern-exec import with VM flags', () => {
  it('--vmtrace callTracer writes a line per imported transaction; --vmdebug/--cache.preimages store preimages', async () => {
    const datadir = join(work, 'traced');
    const calls = join(work, 'calls.jsonl');
    expect(exec(['--datadir', datadir, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
    const r = exec([
      '--datadir',
      datadir,
      '--vmtrace',
      'callTracer',
      '--vmtrace.jsonconfig',
      JSON.stringify({ path: calls }),
      '--vmdebug',
      '--cache.preimages',
      '--nocompaction',
      'import',
      join(APIS, 'chain.rlp'),
    ]);
    expect(r.stderr).not.toMatch(/not supported yet/);
    expect(r.code).toBe(0);
    const { txs, preimages } = await inspect(datadir);
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(txs).toBeGreaterThan(0);
    expect(lines).toHaveLength(txs);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ block: 1, txIndex: 0 });
    expect(preimages.size).toBeGreaterThan(0);
    for (const [hash, pre] of preimages) expect(hex(keccak256(pre))).toBe(hash);
  }, 180_000);

  it('stores no preimages without the flags', async () => {
    const datadir = join(work, 'plain');
    expect(exec(['--datadir', datadir, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
    expect(exec(['--datadir', datadir, 'import', join(APIS, 'chain.rlp')]).code).toBe(0);
    expect((await inspect(datadir)).preimages.size).toBe(0);
  }, 180_000);
});
