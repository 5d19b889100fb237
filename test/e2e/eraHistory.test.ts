// Era1 history as an operator uses it: `tern-exec export-history` and `import-history` as real processes over
// dist/, on the execution-apis test chain (typed and legacy transactions, contract creations, logs). The archive
// round-trips (import into a fresh node ends on the same head), its checksums and accumulator roots are checked,
// and a node whose database lost its old bodies and receipts (history pruned, as geth's prune-history leaves it)
// answers the execution-apis fixtures for those blocks from the archives given with --datadir.era.

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/main/common/logger/index.js';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import * as chain from '../../src/main/exec/db/chain.js';
import { openDatabase } from '../../src/main/exec/db/open.js';
import { computeAccumulator } from '../../src/main/exec/era/accumulator.js';
import { Era1File } from '../../src/main/exec/era/store.js';
import { attachEraHistory } from '../../src/main/exec/node.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { decodeHeader } from '../../src/main/primitives/block/header.js';
import { execTernExec, headOf } from '../helpers/execProcesses.js';
import { buildTestChain, EXECUTION_APIS, serveTestChain } from '../unit/main/exec/rpc/chain.js';

const work = mkdtempSync(join(tmpdir(), 'tern-era-'));
const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** tern-exec with JSON logs. */
const exec = (args: string[]) => execTernExec(['--log.format', 'json', ...args]);
const errorLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('tern-exec: '));

const source = join(work, 'source');
const eras = join(work, 'eras');
let head: { number: bigint; hash: string };

beforeAll(async () => {
  const { db } = await buildTestChain(logger, source);
  await db.close();
  head = await headOf(source);
  const r = exec(['--datadir', source, 'export-history', eras, '0', String(head.number)]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tern-exec export-history', () => {
  it('writes one era1 file named after the network and accumulator root, and its sha256 in checksums.txt', async () => {
    const files = readdirSync(eras).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toBe('checksums.txt');
    const name = files[1] as string;
    expect(name).toMatch(/^unknown-00000-[0-9a-f]{8}\.era1$/);
    const path = join(eras, name);
    expect(readFileSync(join(eras, 'checksums.txt'), 'utf8')).toBe(
      `0x${createHash('sha256').update(readFileSync(path)).digest('hex')}`,
    );

    const era = new Era1File(path);
    const db = await openDatabase({ datadir: source, readonly: true });
    try {
      const r = era.reader;
      expect([r.start, r.count]).toEqual([0n, Number(head.number) + 1]);
      const records = [];
      let td = 0n;
      for (let n = 0n; n <= head.number; n++) {
        const b = r.block(n);
        const hash = chain.readCanonicalHash(db, Number(n)) as Uint8Array;
        expect(hex(keccak256(b.header))).toBe(hex(hash));
        expect(hex(b.header)).toBe(hex(chain.readHeaderRlp(db, Number(n), hash) as Uint8Array));
        expect(hex(b.body)).toBe(hex(chain.readBodyRlp(db, Number(n), hash) as Uint8Array));
        // The total difficulty is the running sum of the headers' difficulties (the genesis has 0x20000).
        td += decodeHeader(b.header).difficulty;
        expect(b.totalDifficulty).toBe(td);
        records.push({ hash, totalDifficulty: td });
      }
      const root = computeAccumulator(records);
      expect(hex(r.accumulator())).toBe(hex(root));
      expect(name.slice(14, 22)).toBe(hex(root).slice(2, 10));
    } finally {
      era.close();
      await db.close();
    }
  });

  it('refuses bad arguments with one line and exit 2', () => {
    for (const args of [['0'], ['a', '2'], ['5', '2'], ['0', '999']]) {
      const r = exec(['--datadir', source, 'export-history', join(work, 'x'), ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(errorLine(r.stderr)).toBeDefined();
    }
  });
});

describe('tern-exec import-history', () => {
  it('imports the archive into a fresh node, ending on the same head', async () => {
    const fresh = join(work, 'fresh');
    expect(exec(['--datadir', fresh, 'init', join(EXECUTION_APIS, 'genesis.json')]).code).toBe(0);
    const r = exec(['--datadir', fresh, 'import-history', eras]);
    expect(r.code, r.stderr).toBe(0);
    expect(await headOf(fresh)).toEqual(head);
  });

  it('refuses a node past genesis, a wrong checksum and a directory without archives', () => {
    let r = exec(['--datadir', source, 'import-history', eras]);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatch(/only supported when starting from genesis/);

    const other = join(work, 'other');
    expect(exec(['--datadir', other, 'init', join(EXECUTION_APIS, 'genesis.json')]).code).toBe(0);
    const tampered = join(work, 'tampered');
    mkdirSync(tampered);
    const name = readdirSync(eras).find((f) => f.endsWith('.era1')) as string;
    copyFileSync(join(eras, name), join(tampered, name));
    writeFileSync(join(tampered, 'checksums.txt'), `0x${'00'.repeat(32)}`);
    r = exec(['--datadir', other, 'import-history', tampered]);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatch(/checksum mismatch/);

    r = exec(['--datadir', other, 'import-history', work]);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatch(/no era1 files found/);
  });
});

/** The exchanges of one execution-apis fixture file whose answers are exact (not speconly, not errors). */
function exchanges(file: string): Array<{ method: string; params: unknown[]; result: unknown }> {
  const text = readFileSync(join(EXECUTION_APIS, file), 'utf8');
  if (text.includes('speconly')) return [];
  const out = [];
  let request: { method: string; params: unknown[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('>> ')) request = JSON.parse(line.slice(3));
    if (line.startsWith('<< ') && request !== undefined) {
      const res = JSON.parse(line.slice(3)) as { result?: unknown };
      if ('result' in res) out.push({ method: request.method, params: request.params, result: res.result });
    }
  }
  return out;
}

describe('--datadir.era serves pruned history', () => {
  const pruned = join(work, 'pruned');
  const METHODS = [
    'eth_getBlockByNumber',
    'eth_getBlockByHash',
    'eth_getBlockReceipts',
    'debug_getRawBlock',
    'debug_getRawReceipts',
  ];
  const cases = METHODS.flatMap((m) =>
    readdirSync(join(EXECUTION_APIS, m)).flatMap((f) =>
      exchanges(join(m, f)).map((x) => ({ name: `${m}/${f}`, ...x })),
    ),
  );

  it('answers the execution-apis fixtures for blocks whose bodies and receipts left the database', async () => {
    const { db } = await buildTestChain(logger, pruned);
    // Drop bodies and receipts of every block below the head (geth's prune-history keeps headers only).
    const b = db.kv.batch();
    for (let n = 1; n < Number(head.number); n++) {
      const hash = chain.readCanonicalHash(db, n) as Uint8Array;
      chain.deleteBody(b, n, hash);
      chain.deleteReceipts(b, n, hash);
    }
    await b.commit();
    await db.close();
    const reopened = await openDatabase({ datadir: pruned });
    try {
      const store = new ChainStore(reopened);
      const without = serveTestChain({ db: reopened, store });
      // Without the archives the pruned blocks are gone.
      expect(await without.call('eth_getBlockByNumber', ['0x2', false])).toBeNull();

      const era = attachEraHistory(reopened, eras, logger);
      expect(era?.range()).toEqual({ first: 0n, last: head.number });
      const rpc = serveTestChain({ db: reopened, store });
      expect(cases.length).toBeGreaterThan(10);
      for (const c of cases) expect(await rpc.call(c.method, c.params), c.name).toEqual(c.result);
      era?.close();
    } finally {
      await reopened.close();
    }
  });
});
