// Opening the chain database from tern-exec's settings (--datadir, --db.engine, --datadir.ancient, --cache.database,
// --fdlimit), closed by the lifecycle on shutdown. Database errors that come from the operator's input become usage
// errors.
import type { Settings } from '../../cli/parse.js';
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { type Database, openDatabase, resolveDbPaths } from '../db/open.js';
import { allocateDatabaseResources } from '../db/resources.js';
import { storageSettings } from '../history/options.js';

/**
 * geth's MakeDatabaseHandles: raises the open-file limit (--fdlimit) and logs the database's allowance; returns the
 * --cache.database share in MB for openDatabase.
 */
export function databaseAllocation(settings: Settings, logger: Logger, database: string): number {
  const cacheMB = storageSettings(settings).cache.databaseMB;
  allocateDatabaseResources({ database, cacheMB, fdLimit: settings.get<number | undefined>('fdlimit') }, { logger });
  return cacheMB;
}

const OPERATOR_ERRORS = new Set([
  'UNSUPPORTED_DB_ENGINE',
  'DB_ENGINE_MISMATCH',
  'DB_SCHEMA_TOO_NEW',
  'DB_SCHEMA_UNSUPPORTED',
  'DB_ANCIENT_MISMATCH',
]);

export async function openChainDatabase(settings: Settings, lifecycle: Lifecycle, logger: Logger): Promise<Database> {
  const datadir = settings.get<string>('datadir');
  const ancient = settings.get<string | undefined>('datadir.ancient');
  const engine = settings.get<string | undefined>('db.engine');
  const where = engine === 'memory' ? 'memory' : resolveDbPaths(datadir, ancient).chaindata;
  const cacheMB = databaseAllocation(settings, logger, where);
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
