// Opening tern-exec's chain database: the engine (--db.engine), the datadir layout (<datadir>/chaindata/ for the
// key-value store, <datadir>/chaindata/ancient/ or --datadir.ancient for the ancient store), and the checks that keep
// a build from reading a database it does not understand (another engine's files, a newer schema version).

import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { DbErrorCode, type KVStore, type ReadSnapshot } from '../../common/db/interface.js';
import { LmdbStore } from '../../common/db/lmdb.js';
import { MemoryStore } from '../../common/db/memory.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { BlockCache, blockCacheBytes, blockCacheDefaults } from './blockCache.js';
import {
  type ChainReader,
  type HistoryReader,
  readCanonicalHash,
  readEngineName,
  readSchemaVersion,
  writeEngineName,
  writeSchemaVersion,
} from './chain.js';
import { Freezer } from './freezer.js';
import { SCHEMA_VERSION } from './schema.js';

/** The engines tern has: LMDB (persistent, the default) and memory (ephemeral dev chains, tests). */
export const DB_ENGINES = ['lmdb', 'memory'] as const;
export type DbEngine = (typeof DB_ENGINES)[number];

/** geth's engines, accepted by --db.engine for compatibility and refused with a clear error. */
const GETH_ENGINES = ['pebble', 'leveldb'];

export interface OpenDatabaseOptions {
  /** --datadir; required for lmdb, ignored by memory. */
  datadir?: string;
  /** --db.engine; unset or empty means lmdb. */
  engine?: string;
  /**
   * --cache.database share of the cache, in MB. LMDB keeps no cache of its own (reads are served from the memory map,
   * i.e. the operating system's page cache), so the share goes to the decoded block cache (./blockCache.ts), capped
   * at a quarter of the JS heap limit. Unset: blockCacheDefaults (64 MiB); 0 disables it.
   */
  cacheMB?: number;
  /** Open without writing: nothing is created, repaired or versioned; a missing database is DB_NOT_FOUND. */
  readonly?: boolean;
  /** --datadir.ancient: root of the ancient data; relative paths are taken from the datadir. */
  ancient?: string;
}

export const openDatabaseDefaults = { engine: 'lmdb', readonly: false } as const;

export interface OpenDatabaseDeps {
  logger?: Logger;
}

export interface DbPaths {
  /** <datadir>/chaindata: the LMDB environment. */
  chaindata: string;
  /** Root of the ancient data: --datadir.ancient, default <datadir>/chaindata/ancient. */
  ancient: string;
  /** The chain freezer's tables: <ancient>/chain (as geth lays it out, leaving room for other freezers). */
  ancientChain: string;
}

/**
 * This process's LMDB environment opened again from a worker thread (lmdb-js shares an environment between the
 * threads of a process): the ancient store read-only, since the coordinator's history service appends to it, and
 * none while nothing is frozen yet (every block is then in LMDB).
 */
export function openOnWorkerThread(paths: DbPaths, opts: { readonly: boolean; blockCacheBytes: number }): Database {
  const kv = new LmdbStore({ path: paths.chaindata, readonly: opts.readonly });
  let ancients: Freezer | undefined;
  try {
    ancients = new Freezer({ dir: paths.ancientChain, readonly: true });
  } catch {
    ancients = undefined;
  }
  return new Database('lmdb', kv, ancients, paths, new BlockCache({ maxBytes: opts.blockCacheBytes }));
}

export function resolveDbPaths(datadir: string, ancient?: string): DbPaths {
  const chaindata = join(resolve(datadir), 'chaindata');
  const root =
    ancient === undefined || ancient === ''
      ? join(chaindata, 'ancient')
      : isAbsolute(ancient)
        ? ancient
        : resolve(datadir, ancient);
  return { chaindata, ancient: root, ancientChain: join(root, 'chain') };
}

/** --datadir.era: relative to the datadir; by default `era` inside the ancient store's chain directory. */
export function resolveEraDir(datadir: string, ancient: string | undefined, era: string | undefined): string {
  if (era === undefined || era === '') return join(resolveDbPaths(datadir, ancient).ancientChain, 'era');
  return isAbsolute(era) ? era : resolve(datadir, era);
}

/** Maps --db.engine to an engine tern has, or throws UNSUPPORTED_DB_ENGINE naming the ones it does. */
export function resolveEngine(engine: string | undefined): DbEngine {
  if (engine === undefined || engine === '') return openDatabaseDefaults.engine;
  if ((DB_ENGINES as readonly string[]).includes(engine)) return engine as DbEngine;
  const supported = 'tern supports --db.engine=lmdb (the default) and --db.engine=memory (an ephemeral dev chain)';
  if (GETH_ENGINES.includes(engine))
    throw new TernError(
      DbErrorCode.unsupportedEngine,
      `the ${engine} database engine is not available in tern; ${supported}`,
    );
  throw new TernError(DbErrorCode.unsupportedEngine, `unknown database engine "${engine}"; ${supported}`);
}

/**
 * The engine whose files are in a database directory: 'lmdb' (data.mdb), 'pebble' or 'leveldb' (geth's: a CURRENT
 * file, with OPTIONS-* for pebble), or undefined when there is none.
 */
export function detectEngine(dir: string): 'lmdb' | 'pebble' | 'leveldb' | undefined {
  if (!existsSync(dir)) return undefined;
  const names = readdirSync(dir);
  if (names.includes('data.mdb')) return 'lmdb';
  if (names.includes('CURRENT') || names.some((n) => n.startsWith('MANIFEST-')))
    return names.some((n) => n.startsWith('OPTIONS-')) ? 'pebble' : 'leveldb';
  return undefined;
}

/** A consistent read view of the chain database: a key-value snapshot paired with the (append-only) ancient store. */
export interface ChainSnapshot extends ChainReader {
  readonly kv: ReadSnapshot;
  release(): void;
}

export class Database implements ChainReader {
  readonly engine: DbEngine;
  readonly kv: KVStore;
  /** The ancient store; undefined for the memory engine (nothing is ever frozen there). */
  readonly ancients: Freezer | undefined;
  /** Where the files are; undefined for the memory engine. */
  readonly paths: DbPaths | undefined;
  /**
   * Decoded headers, blocks and receipts by block hash (--cache.database), shared by every reader of this database,
   * snapshots included: entries never change for a hash, and readers confirm hits against their own view.
   */
  readonly blockCache: BlockCache;
  /** Archived history (era1 files) serving canonical blocks the database does not hold; attached by the node. */
  history: HistoryReader | undefined;
  #closing: Promise<void> | undefined;

  constructor(
    engine: DbEngine,
    kv: KVStore,
    ancients: Freezer | undefined,
    paths: DbPaths | undefined,
    blockCache: BlockCache = new BlockCache(),
  ) {
    this.engine = engine;
    this.kv = kv;
    this.ancients = ancients;
    this.paths = paths;
    this.blockCache = blockCache;
  }

  snapshot(): ChainSnapshot {
    const kv = this.kv.snapshot();
    return {
      kv,
      ancients: this.ancients,
      blockCache: this.blockCache,
      history: this.history,
      release: () => kv.release(),
    };
  }

  /** Closes the ancient store and the key-value store (waiting for writes in flight). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.ancients?.close();
      } finally {
        await this.kv.close();
      }
    })();
    return this.#closing;
  }
}

export async function openDatabase(opts: OpenDatabaseOptions, deps: OpenDatabaseDeps = {}): Promise<Database> {
  const engine = resolveEngine(opts.engine);
  const readonly = opts.readonly ?? openDatabaseDefaults.readonly;
  const logger = deps.logger;
  const cache = blockCacheFor(opts.cacheMB, logger);
  if (engine === 'memory') {
    const kv = new MemoryStore({ name: 'chaindata' }, logger === undefined ? {} : { logger });
    const b = kv.batch();
    writeSchemaVersion(b);
    writeEngineName(b, engine);
    await b.commit();
    logger?.info('Opened in-memory database (nothing is persisted)', { blockCacheMB: mib(cache.maxBytes) });
    return new Database(engine, kv, undefined, undefined, cache);
  }

  if (opts.datadir === undefined || opts.datadir === '')
    throw new TernError(DbErrorCode.invalidArgument, 'the lmdb database engine needs a --datadir');
  const paths = resolveDbPaths(opts.datadir, opts.ancient);
  const found = detectEngine(paths.chaindata);
  if (found !== undefined && found !== engine)
    throw new TernError(
      DbErrorCode.engineMismatch,
      `${paths.chaindata} holds a ${found} database (written by geth or another client); tern reads only its own ` +
        'lmdb databases: use a fresh --datadir',
    );
  if (readonly && found === undefined)
    throw new TernError(DbErrorCode.notFound, `no database in ${paths.chaindata} to open read-only`);

  const kv = new LmdbStore({ path: paths.chaindata, readonly }, logger === undefined ? {} : { logger });
  let ancients: Freezer | undefined;
  try {
    await checkSchema(kv, engine, readonly, paths.chaindata);
    ancients = new Freezer({ dir: paths.ancientChain, readonly }, logger === undefined ? {} : { logger });
    checkAncients(kv, ancients);
  } catch (err) {
    await ancients?.close();
    await kv.close();
    throw err;
  }
  logger?.info('Opened database', {
    engine,
    chaindata: paths.chaindata,
    ancient: paths.ancient,
    ancients: ancients.ancients(),
    readonly,
    blockCacheMB: mib(cache.maxBytes),
  });
  return new Database(engine, kv, ancients, paths, cache);
}

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 100) / 100;

/** The block cache for a --cache.database share (unset: the default size); says so when the heap cap lowers it. */
function blockCacheFor(cacheMB: number | undefined, logger: Logger | undefined): BlockCache {
  if (cacheMB === undefined) return new BlockCache(blockCacheDefaults);
  const { maxBytes, capped } = blockCacheBytes(cacheMB);
  if (capped)
    // Info, not a warning: the default --cache (4096) asks for more than a default Node heap allows.
    logger?.info(
      'Database cache share lowered to a quarter of the JS heap limit (NODE_OPTIONS=--max-old-space-size raises it)',
      {
        requestedMB: cacheMB,
        usedMB: mib(maxBytes),
      },
    );
  return new BlockCache({ maxBytes });
}

/** Refuses databases of a newer (or unknown) schema or another engine; stamps a new database with both. */
async function checkSchema(kv: KVStore, engine: DbEngine, readonly: boolean, where: string): Promise<void> {
  const version = readSchemaVersion(kv);
  if (version === undefined) {
    let empty = true;
    for (const _ of kv.iterate({ limit: 1 })) empty = false;
    if (!empty)
      throw new TernError(
        DbErrorCode.schemaUnsupported,
        `the database in ${where} has no schema version, so it was not written by tern; use a fresh --datadir`,
      );
    if (readonly) throw new TernError(DbErrorCode.notFound, `the database in ${where} is empty`);
    const b = kv.batch();
    writeSchemaVersion(b, SCHEMA_VERSION);
    writeEngineName(b, engine);
    await b.commit();
    return;
  }
  if (version > SCHEMA_VERSION)
    throw new TernError(
      DbErrorCode.schemaTooNew,
      `the database in ${where} has schema version ${version}, newer than this tern understands ` +
        `(${SCHEMA_VERSION}): run a newer tern, or use another --datadir`,
    );
  if (version < SCHEMA_VERSION)
    throw new TernError(
      DbErrorCode.schemaUnsupported,
      `the database in ${where} has schema version ${version}, which this tern cannot upgrade to ${SCHEMA_VERSION}`,
    );
  const stored = readEngineName(kv);
  if (stored !== engine)
    throw new TernError(
      DbErrorCode.engineMismatch,
      `the database in ${where} was written by the ${stored ?? 'unknown'} engine, not ${engine}`,
    );
}

/** The ancient store must belong to the same chain as the key-value store (same block 0). */
function checkAncients(kv: KVStore, ancients: Freezer): void {
  if (ancients.ancients() === 0) return;
  const frozen = ancients.ancient('hashes', 0);
  const genesis = readCanonicalHash(kv, 0);
  if (frozen === undefined || genesis === undefined) return;
  if (frozen.length !== genesis.length || frozen.some((b, i) => b !== genesis[i]))
    throw new TernError(
      DbErrorCode.ancientMismatch,
      `the ancient store in ${ancients.dir} belongs to another chain (its block 0 differs from the database's)`,
    );
}
