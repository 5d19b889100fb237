// Opening the chain database from tern-exec's settings (--datadir, --db.engine, --datadir.ancient), closed by
// the lifecycle on shutdown. Database errors that come from the operator's input become usage errors.
import type { Settings } from '../../cli/parse.js';
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { type Database, openDatabase } from '../db/open.js';

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
  let db: Database;
  try {
    db = await openDatabase(
      {
        datadir,
        ...(engine ? { engine } : {}),
        ...(ancient ? { ancient } : {}),
        cacheMB: settings.get<number>('cache'),
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
