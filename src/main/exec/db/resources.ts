// What tern-exec sets up for its database before opening it, as geth's MakeDatabaseHandles and MakeChainDatabase do:
// the open-file limit (--fdlimit: raised to the request, or to the hard limit by default) and the --cache.database
// share (the decoded block cache, ./blockCache.ts), announced in geth's "Allocated cache and file handles" line.
import { TernError, UsageError } from '../../common/errors.js';
import { type RaisedFdLimit, raiseFdLimit } from '../../common/fdlimit.js';
import type { Logger } from '../../common/logger/index.js';
import { blockCacheBytes } from './blockCache.js';

export interface DatabaseResourceOptions {
  /** Where the database is (its chaindata directory, or "memory"), for the log line. */
  database: string;
  /** --cache.database share in MB. */
  cacheMB: number;
  /** --fdlimit; undefined (or 0) raises to the hard limit. */
  fdLimit: number | undefined;
}

export interface DatabaseResources {
  /** The block cache size, in MB, the database gets (the share, unless the heap cap lowers it). */
  cacheMB: number;
  /** The open-file limit now in force (the soft limit); undefined when it could not be read or changed. */
  handles: number | undefined;
}

/** geth's common.StorageSize formatting: "2.00 GiB". */
export function storageSize(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 4, 'TiB'],
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) if (bytes > size) return `${(bytes / size).toFixed(2)} ${unit}`;
  return `${bytes.toFixed(2)} B`;
}

/**
 * Raises the open-file limit and logs the database's allowance. A failure to raise is fatal when --fdlimit asked for
 * a value (the operator wanted it) and a warning otherwise (tern needs few descriptors: LMDB keeps two files open).
 */
export function allocateDatabaseResources(
  opts: DatabaseResourceOptions,
  deps: { logger: Logger; raise?: (requested: number | undefined) => RaisedFdLimit },
): DatabaseResources {
  const { logger } = deps;
  const requested = opts.fdLimit === 0 ? undefined : opts.fdLimit;
  let handles: number | undefined;
  try {
    const r = (deps.raise ?? raiseFdLimit)(requested);
    if (r.invalid) logger.error('File descriptor limit invalid (<128)', { had: requested, updated: r.limit });
    else if (r.capped) logger.warn('Requested file descriptors denied by OS', { req: requested, limit: r.limit });
    handles = r.limit;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (requested !== undefined)
      throw new UsageError(`--fdlimit ${requested}: cannot raise the open-file limit: ${message}`);
    if (!(err instanceof TernError)) throw err;
    logger.warn('Could not raise the open-file limit; keeping the current one', { err: message });
  }
  const { maxBytes } = blockCacheBytes(opts.cacheMB);
  logger.info('Allocated cache and file handles', {
    database: opts.database,
    cache: storageSize(maxBytes),
    handles: handles === Number.POSITIVE_INFINITY ? 'unlimited' : handles,
  });
  return { cacheMB: opts.cacheMB, handles };
}
