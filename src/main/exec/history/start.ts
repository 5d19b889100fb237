// Starting the storage tasks from tern-exec's node: flag problems with the database become usage errors, the
// service stops with the lifecycle (before the database closes), and low disk space stops the node.
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { Database } from '../db/open.js';
import { configureLogCache } from './logCache.js';
import type { ResolvedStorageSettings } from './options.js';
import { HistoryErrorCode } from './policy.js';
import { HistoryService, type HistoryServiceDeps } from './service.js';
import { registerTxIndexStatus } from './txIndexStatus.js';

export async function startStorageTasks(
  db: Database,
  config: ChainConfig,
  storage: ResolvedStorageSettings | undefined,
  deps: { logger: Logger; lifecycle: Lifecycle } & Pick<HistoryServiceDeps, 'freeBytes' | 'diskIntervalMs'>,
): Promise<HistoryService> {
  const logger = deps.logger.child('history');
  for (const note of storage?.notes ?? []) logger.warn(note);
  if (storage !== undefined) {
    configureLogCache(storage.cache.blockLogs);
    logger.info('Cache allowance', {
      totalMB: storage.cache.totalMB,
      databaseMB: storage.cache.databaseMB,
      trieCleanMB: storage.cache.trieCleanMB,
      trieDirtyMB: storage.cache.trieDirtyMB,
      snapshotMB: storage.cache.snapshotMB,
      blockLogs: storage.cache.blockLogs,
    });
  }
  let svc: HistoryService;
  try {
    svc = await HistoryService.open(
      db,
      config,
      { ...storage?.history, minFreeDiskMB: storage?.minFreeDiskMB },
      {
        logger,
        onLowDisk: () => void deps.lifecycle.stop('low disk space'),
        freeBytes: deps.freeBytes,
        diskIntervalMs: deps.diskIntervalMs,
      },
    );
  } catch (err) {
    const codes: string[] = Object.values(HistoryErrorCode);
    if (err instanceof TernError && codes.includes(err.code)) throw new UsageError(err.message);
    throw err;
  }
  const unregister = registerTxIndexStatus(db, () => svc.txIndexDone());
  deps.lifecycle.onStop('storage history', async () => {
    unregister();
    await svc.stop();
  });
  return svc;
}
