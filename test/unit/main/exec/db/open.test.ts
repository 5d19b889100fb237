import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DbErrorCode } from '../../../../../src/main/common/db/interface.js';
import { LmdbStore } from '../../../../../src/main/common/db/lmdb.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import {
  readCanonicalHash,
  readEngineName,
  readHeaderRlp,
  readSchemaVersion,
  writeCanonicalHash,
  writeHeaderRlp,
  writeSchemaVersion,
} from '../../../../../src/main/exec/db/chain.js';
import { Freezer } from '../../../../../src/main/exec/db/freezer.js';
import { detectEngine, openDatabase, resolveDbPaths, resolveEngine } from '../../../../../src/main/exec/db/open.js';
import { SCHEMA_VERSION } from '../../../../../src/main/exec/db/schema.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tern-open-'));
  dirs.push(d);
  return d;
}

async function caught(p: Promise<unknown> | (() => unknown)): Promise<TernError> {
  try {
    if (typeof p === 'function') await p();
    else await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TernError);
    return err as TernError;
  }
  throw new Error('expected an error');
}

const hash = (n: number): Uint8Array => new Uint8Array(32).fill(n);

describe('--db.engine', () => {
  it('defaults to lmdb and accepts memory', () => {
    expect(resolveEngine(undefined)).toBe('lmdb');
    expect(resolveEngine('')).toBe('lmdb');
    expect(resolveEngine('lmdb')).toBe('lmdb');
    expect(resolveEngine('memory')).toBe('memory');
  });

  it.each(['pebble', 'leveldb'])('answers geth’s %s with a clear error naming what tern supports', async (engine) => {
    const err = await caught(() => resolveEngine(engine));
    expect(err.code).toBe(DbErrorCode.unsupportedEngine);
    expect(err.code).toBe('UNSUPPORTED_DB_ENGINE');
    expect(err.message).toContain(engine);
    expect(err.message).toContain('not available in tern');
    expect(err.message).toContain('lmdb');
    expect(err.message).toContain('memory');
    // Nothing is created on disk.
    const datadir = join(tempDir(), 'dd');
    expect((await caught(openDatabase({ datadir, engine }))).code).toBe('UNSUPPORTED_DB_ENGINE');
    expect(existsSync(datadir)).toBe(false);
  });

  it('refuses unknown engine names the same way', async () => {
    const err = await caught(() => resolveEngine('rocksdb'));
    expect(err.code).toBe('UNSUPPORTED_DB_ENGINE');
    expect(err.message).toContain('"rocksdb"');
  });
});

describe('datadir layout', () => {
  it('puts the key-value store in chaindata/ and the ancient store in chaindata/ancient/ by default', () => {
    expect(resolveDbPaths('/data/tern')).toEqual({
      chaindata: '/data/tern/chaindata',
      ancient: '/data/tern/chaindata/ancient',
      ancientChain: '/data/tern/chaindata/ancient/chain',
    });
  });

  it('takes --datadir.ancient, absolute or relative to the datadir', () => {
    expect(resolveDbPaths('/data/tern', '/mnt/slow/ancient').ancientChain).toBe('/mnt/slow/ancient/chain');
    expect(resolveDbPaths('/data/tern', 'old').ancient).toBe('/data/tern/old');
  });

  it('creates the layout, stamps the schema version and engine, and reopens', async () => {
    const datadir = tempDir();
    const db = await openDatabase({ datadir, cacheMB: 512 });
    expect(db.engine).toBe('lmdb');
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(readEngineName(db)).toBe('lmdb');
    const b = db.kv.batch();
    writeHeaderRlp(b, 0, hash(1), Uint8Array.of(0xc0));
    writeCanonicalHash(b, 0, hash(1));
    await b.commit();
    await db.close();
    expect(readdirSync(join(datadir, 'chaindata')).sort()).toEqual(['ancient', 'data.mdb', 'lock.mdb']);
    expect(readdirSync(join(datadir, 'chaindata', 'ancient', 'chain')).length).toBe(8);
    expect(detectEngine(join(datadir, 'chaindata'))).toBe('lmdb');

    const again = await openDatabase({ datadir });
    expect(readCanonicalHash(again, 0)).toEqual(hash(1));
    const snap = again.snapshot();
    expect(readHeaderRlp(snap, 0, hash(1))).toEqual(Uint8Array.of(0xc0));
    snap.release();
    await again.close();

    const ro = await openDatabase({ datadir, readonly: true });
    expect(readCanonicalHash(ro, 0)).toEqual(hash(1));
    expect((await caught(() => ro.kv.batch())).code).toBe(DbErrorCode.readonly);
    await ro.close();
  });

  it('keeps the ancient store where --datadir.ancient says', async () => {
    const datadir = tempDir();
    const ancient = join(tempDir(), 'elsewhere');
    const db = await openDatabase({ datadir, ancient });
    expect(db.ancients?.dir).toBe(join(ancient, 'chain'));
    await db.close();
    expect(existsSync(join(ancient, 'chain', 'headers.idx'))).toBe(true);
    expect(existsSync(join(datadir, 'chaindata', 'ancient'))).toBe(false);
  });

  it('needs a datadir for lmdb, and refuses to open a missing database read-only', async () => {
    expect((await caught(openDatabase({}))).code).toBe(DbErrorCode.invalidArgument);
    const datadir = join(tempDir(), 'none');
    expect((await caught(openDatabase({ datadir, readonly: true }))).code).toBe(DbErrorCode.notFound);
    expect(existsSync(datadir)).toBe(false);
  });
});

describe('refusing databases this build does not understand', () => {
  it('refuses a database of a newer schema version, leaving it untouched', async () => {
    const datadir = tempDir();
    const db = await openDatabase({ datadir });
    const b = db.kv.batch();
    writeSchemaVersion(b, SCHEMA_VERSION + 1);
    await b.commit();
    await db.close();
    const err = await caught(openDatabase({ datadir }));
    expect(err.code).toBe(DbErrorCode.schemaTooNew);
    expect(err.code).toBe('DB_SCHEMA_TOO_NEW');
    expect(err.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(err.message).toContain('newer tern');
    const raw = new LmdbStore({ path: join(datadir, 'chaindata'), readonly: true });
    expect(readSchemaVersion(raw)).toBe(SCHEMA_VERSION + 1);
    await raw.close();
  });

  it('refuses an older schema version and a database with data but no version', async () => {
    const older = tempDir();
    const db = await openDatabase({ datadir: older });
    const b = db.kv.batch();
    writeSchemaVersion(b, 0);
    await b.commit();
    await db.close();
    expect((await caught(openDatabase({ datadir: older }))).code).toBe(DbErrorCode.schemaUnsupported);

    const foreign = tempDir();
    const raw = new LmdbStore({ path: join(foreign, 'chaindata') });
    const w = raw.batch();
    w.put(Uint8Array.of(1, 2, 3), Uint8Array.of(4));
    await w.commit();
    await raw.close();
    const err = await caught(openDatabase({ datadir: foreign }));
    expect(err.code).toBe(DbErrorCode.schemaUnsupported);
    expect(err.message).toContain('not written by tern');
  });

  it.each([
    ['pebble', ['CURRENT', 'MANIFEST-000001', 'OPTIONS-000003', '000004.log']],
    ['leveldb', ['CURRENT', 'MANIFEST-000002', 'LOG', '000005.ldb']],
  ])('refuses a chaindata directory written by geth’s %s', async (engine, files) => {
    const datadir = tempDir();
    mkdirSync(join(datadir, 'chaindata'));
    for (const f of files) writeFileSync(join(datadir, 'chaindata', f), 'x');
    expect(detectEngine(join(datadir, 'chaindata'))).toBe(engine);
    const err = await caught(openDatabase({ datadir }));
    expect(err.code).toBe(DbErrorCode.engineMismatch);
    expect(err.message).toContain(engine);
    expect(existsSync(join(datadir, 'chaindata', 'data.mdb'))).toBe(false);
  });

  it('refuses an ancient store of another chain', async () => {
    const datadir = tempDir();
    const db = await openDatabase({ datadir });
    const b = db.kv.batch();
    writeCanonicalHash(b, 0, hash(1));
    await b.commit();
    await db.close();
    const f = new Freezer({ dir: resolveDbPaths(datadir).ancientChain });
    await f.append(0, [
      { hashes: hash(2), headers: Uint8Array.of(1), bodies: Uint8Array.of(2), receipts: Uint8Array.of(3) },
    ]);
    await f.close();
    expect((await caught(openDatabase({ datadir }))).code).toBe(DbErrorCode.ancientMismatch);
  });
});

describe('the memory engine', () => {
  it('needs no datadir, persists nothing and has no ancient store', async () => {
    const db = await openDatabase({ engine: 'memory', datadir: join(tempDir(), 'unused') });
    expect(db.engine).toBe('memory');
    expect(db.ancients).toBeUndefined();
    expect(db.paths).toBeUndefined();
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
    const b = db.kv.batch();
    writeCanonicalHash(b, 0, hash(3));
    await b.commit();
    const snap = db.snapshot();
    expect(readCanonicalHash(snap, 0)).toEqual(hash(3));
    snap.release();
    await db.close();
    await db.close();
  });
});
