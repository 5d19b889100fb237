// Opening the chain database from tern-exec's options (--datadir, --db.engine, --datadir.ancient, --cache.database,
// --fdlimit), closed by the lifecycle on shutdown. Database errors that come from the operator's input become usage
// errors.
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import type { ChainStore } from '../chain/chainStore.js';
import { type Database, openDatabase, resolveDbPaths } from '../db/open.js';
import { openRemoteDatabase } from '../db/remote.js';
import { allocateDatabaseResources } from '../db/resources.js';

export interface ChainDatabaseOptions {
  /** --datadir */
  datadir: string;
  /** --datadir.ancient */
  ancient: string | undefined;
  /** --datadir.era, resolved: era1 archives the node serves history from. */
  era: string;
  /** --db.engine (undefined: the database's own, or the default for a new one) */
  engine: string | undefined;
  /** The --cache.database share of --cache, MB. */
  cacheMB: number;
  /** --fdlimit */
  fdLimit: number | undefined;
  /** --remotedb with its --header values: the read-only commands read the chain from that node instead. */
  remote?: { url: string; headers: Record<string, string> } | undefined;
}

/**
 * geth's MakeDatabaseHandles: raises the open-file limit (--fdlimit) and logs the database's allowance; returns the
 * --cache.database share in MB for openDatabase.
 */
export function databaseAllocation(
  opts: Pick<ChainDatabaseOptions, 'cacheMB' | 'fdLimit'>,
  logger: Logger,
  database: string,
): number {
  allocateDatabaseResources({ database, cacheMB: opts.cacheMB, fdLimit: opts.fdLimit }, { logger });
  return opts.cacheMB;
}

const OPERATOR_ERRORS = new Set([
  'UNSUPPORTED_DB_ENGINE',
  'DB_ENGINE_MISMATCH',
  'DB_SCHEMA_TOO_NEW',
  'DB_SCHEMA_UNSUPPORTED',
  'DB_ANCIENT_MISMATCH',
]);

export async function openChainDatabase(
  opts: ChainDatabaseOptions,
  lifecycle: Lifecycle,
  logger: Logger,
): Promise<Database> {
  const { datadir, ancient, engine } = opts;
  const where = engine === 'memory' ? 'memory' : resolveDbPaths(datadir, ancient).chaindata;
  const cacheMB = databaseAllocation(opts, logger, where);
  let db: Database;
  try {
    db = await openDatabase(
      {
        datadir,
        ...(engine ? { engine } : {}),
        ...(ancient ? { ancient } : {}),
        cacheMB,
      },
      { logger },
    );
  } catch (err) {
    if (err instanceof TernError && OPERATOR_ERRORS.has(err.code)) throw new UsageError(err.message);
    throw err;
  }
  lifecycle.onStop('database', () => db.close());
  return db;
}

/**
 * The database of a read-only command (export, export-history): the node at --remotedb when given (geth's
 * remotedb: reads as debug_dbGet / debug_dbAncient calls), else the local one.
 */
export async function openReadChainDatabase(
  opts: ChainDatabaseOptions,
  lifecycle: Lifecycle,
  logger: Logger,
): Promise<Database> {
  if (opts.remote === undefined) return openChainDatabase(opts, lifecycle, logger);
  logger.info('Using remote db', { url: opts.remote.url, headers: Object.keys(opts.remote.headers).length });
  let db: Database;
  try {
    db = openRemoteDatabase(opts.remote.url, opts.remote.headers);
  } catch (err) {
    if (err instanceof TernError) throw new UsageError(err.message);
    throw err;
  }
  lifecycle.onStop('remote database', () => db.close());
  return db;
}

/** The chain's head, for a command: a datadir without a genesis is the user's mistake (init first), not a crash. */
export function commandHead(store: ChainStore): ReturnType<ChainStore['head']> {
  try {
    return store.head();
  } catch (err) {
    if (err instanceof TernError && err.code === 'CHAIN_NOT_INITIALISED') throw new UsageError(err.message);
    throw err;
  }
}
