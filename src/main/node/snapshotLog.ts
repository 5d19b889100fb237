// --snapshotlog.file: op-node's rollup state snapshot log. op-node appends one JSON line (geth's slog JSON handler:
// "t", "lvl", "msg", then the attributes) each time an unsafe L2 payload arrives from outside (gossip,
// admin_postUnsafePayload), before queueing it: the event, the L1 head and the unsafe, safe and finalized L2 heads,
// each block reference JSON-encoded into a string. Without the flag nothing is written.
import { closeSync, openSync, writeSync } from 'node:fs';
import { ReportedError } from '../common/errors.js';
import type { Logger } from '../common/logger/index.js';
import type { L1BlockRef, L2BlockRef } from '../primitives/rollup/blockRef.js';
import { l1RefJson, l2RefJson } from './rpc/json.js';

/** op-node's event name for an unsafe payload received from outside. */
export const NEW_UNSAFE_PAYLOAD = 'New unsafe payload';

export interface SnapshotHeads {
  l1Head: L1BlockRef | undefined;
  unsafe: L2BlockRef | undefined;
  safe: L2BlockRef | undefined;
  finalized: L2BlockRef | undefined;
}

export interface SnapshotLog {
  /** Appends one snapshot line; a failing write is logged, never thrown (the snapshot log is diagnostics). */
  snapshot(event: string, heads: SnapshotHeads): void;
  close(): void;
}

/** The JSON line op-node writes for one snapshot (without the trailing newline). */
export function snapshotLine(event: string, heads: SnapshotHeads, at: Date): string {
  return JSON.stringify({
    t: at.toISOString(),
    lvl: 'info',
    msg: 'Rollup State Snapshot',
    event,
    l1Head: JSON.stringify(l1RefJson(heads.l1Head)),
    l2Head: JSON.stringify(l2RefJson(heads.unsafe)),
    l2Safe: JSON.stringify(l2RefJson(heads.safe)),
    l2FinalizedHead: JSON.stringify(l2RefJson(heads.finalized)),
  });
}

export const disabledSnapshotLog: SnapshotLog = { snapshot: () => undefined, close: () => undefined };

/**
 * Opens (creating, appending, mode 0644 as op-node) the snapshot log at `path`; an empty or missing path disables
 * it. A path that cannot be opened stops startup with a clear error. Lines are small and rare (one per received
 * payload), so they are written synchronously and land in order.
 */
export function openSnapshotLog(path: string | undefined, deps: { logger: Logger; now?: () => Date }): SnapshotLog {
  if (path === undefined || path === '') return disabledSnapshotLog;
  let fd: number;
  try {
    fd = openSync(path, 'a', 0o644);
  } catch (err) {
    throw new ReportedError(`cannot open the snapshot log ${path}: ${(err as Error).message}`, err);
  }
  const now = deps.now ?? (() => new Date());
  let open = true;
  let warned = false;
  deps.logger.info('Writing the rollup state snapshot log', { path });
  return {
    snapshot(event, heads) {
      if (!open) return;
      try {
        writeSync(fd, `${snapshotLine(event, heads, now())}\n`);
      } catch (err) {
        if (!warned) deps.logger.warn('Cannot write the snapshot log', { path, err: (err as Error).message });
        warned = true;
      }
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
