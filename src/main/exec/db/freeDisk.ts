// The free-disk guard (--datadir.minfreedisk): polls the free space of the filesystem holding the database and, when
// it falls below the minimum, calls onLow once (tern-exec shuts down in an orderly way, so the database is closed
// before the disk fills) and stops. Below twice the minimum it warns, as geth does. 0 disables the guard.

import { statfs } from 'node:fs/promises';
import type { Logger } from '../../common/logger/index.js';

export interface FreeDiskMonitorOptions {
  /** Poll interval; default 5 s. */
  intervalMs?: number;
  logger?: Logger;
  /** Stops the monitor when aborted. */
  signal?: AbortSignal;
  /** Free bytes available to unprivileged users at `path` (tests replace it); default fs.promises.statfs. */
  freeBytes?: (path: string) => Promise<number>;
}

export const freeDiskMonitorDefaults = { intervalMs: 5_000 } as const;

export interface FreeDiskMonitor {
  stop(): void;
  /** Resolves after the first check (immediately when disabled). */
  readonly ready: Promise<void>;
}

/** geth's default --datadir.minfreedisk (cmd/utils): twice the --cache.gc share of --cache, in MB. */
export function defaultMinFreeDiskMB(cacheMB: number, cacheGCPercent: number): number {
  return 2 * Math.floor((cacheMB * cacheGCPercent) / 100);
}

async function statfsFree(path: string): Promise<number> {
  const s = await statfs(path);
  return s.bavail * s.bsize;
}

const MB = 1024 * 1024;

/**
 * Starts polling. `onLow(freeMB)` is called at most once, when the free space at `path` is below `minFreeMB`; the
 * monitor stops then. A failing statfs is logged and retried at the next poll.
 */
export function startFreeDiskMonitor(
  path: string,
  minFreeMB: number,
  onLow: (freeMB: number) => void,
  opts: FreeDiskMonitorOptions = {},
): FreeDiskMonitor {
  if (!(minFreeMB > 0) || opts.signal?.aborted) return { stop: () => {}, ready: Promise.resolve() };
  const intervalMs = opts.intervalMs ?? freeDiskMonitorDefaults.intervalMs;
  const freeBytes = opts.freeBytes ?? statfsFree;
  const logger = opts.logger;
  let stopped = false;
  let warned = false;
  let timer: NodeJS.Timeout | undefined;

  const stop = (): void => {
    stopped = true;
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
  };
  opts.signal?.addEventListener('abort', stop, { once: true });

  const check = async (): Promise<void> => {
    let freeMB: number;
    try {
      freeMB = Math.floor((await freeBytes(path)) / MB);
    } catch (err) {
      logger?.warn('Failed to check free disk space', { path, err: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (stopped) return;
    if (freeMB < minFreeMB) {
      logger?.error('Low disk space. Gracefully shutting down to prevent database corruption.', {
        available: `${freeMB} MB`,
        minimum: `${minFreeMB} MB`,
        path,
      });
      stop();
      onLow(freeMB);
      return;
    }
    if (freeMB < 2 * minFreeMB) {
      if (!warned)
        logger?.warn('Disk space is running low; tern-exec will shut down below the critical level.', {
          available: `${freeMB} MB`,
          critical: `${minFreeMB} MB`,
          path,
        });
      warned = true;
    } else warned = false;
  };

  const loop = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      void check().then(loop);
    }, intervalMs);
    timer.unref();
  };
  const ready = check().then(loop);
  return { stop, ready };
}
