// tern-node's progress lines, op-node's way: "Sync progress" whenever the engine's unsafe, safe or finalized head
// moves (with op-node's reason), the L1 head/safe/finalized signals, and a sync-status line each time the
// derivation origin advances. The driver and the engine controller call these; the wording and fields follow
// op-node's so log searches and alerts written for op-node keep working.

/** What the lines read of a block reference (L1 or L2). */
export interface ProgressRef {
  readonly number: number;
  readonly hash: string;
  readonly timestamp?: number;
  readonly parentHash?: string;
}

/** `0x1234..abcd:123`, geth's terminal form of a block id: short enough for a line, enough to tell forks apart. */
export function refString(r: ProgressRef | undefined): string {
  if (r === undefined) return 'none';
  const h = r.hash;
  const short = h.length > 14 ? `${h.slice(0, 6)}..${h.slice(-4)}` : h;
  return `${short}:${r.number}`;
}

export interface ProgressHeads {
  readonly unsafe: ProgressRef;
  readonly pendingSafe: ProgressRef;
  readonly safe: ProgressRef;
  readonly finalized: ProgressRef;
}

/**
 * op-node's reason for a "Sync progress" line, or undefined when no head worth reporting moved (a pending-safe
 * change alone, or nothing).
 */
export function syncProgressReason(prev: ProgressHeads | undefined, next: ProgressHeads): string | undefined {
  if (prev === undefined) return undefined;
  if (prev.finalized.hash !== next.finalized.hash) return 'finalized block';
  if (prev.safe.hash !== next.safe.hash) {
    return prev.safe.hash === prev.unsafe.hash ? 'derived safe block from L1' : 'consolidated block with L1';
  }
  if (prev.unsafe.hash !== next.unsafe.hash) return 'new chain head block';
  return undefined;
}

/** The fields of op-node's "Sync progress" line. */
export function syncProgressFields(reason: string, h: ProgressHeads): Record<string, unknown> {
  return {
    reason,
    l2_finalized: refString(h.finalized),
    l2_safe: refString(h.safe),
    l2_pending_safe: refString(h.pendingSafe),
    l2_unsafe: refString(h.unsafe),
    ...(h.unsafe.timestamp !== undefined ? { l2_time: h.unsafe.timestamp } : {}),
  };
}

interface LineLogger {
  info(msg: string, ctx?: Record<string, unknown>): void;
  warn(msg: string, ctx?: Record<string, unknown>): void;
  debug(msg: string, ctx?: Record<string, unknown>): void;
}

/**
 * op-node's L1 head signal lines: info for the first, debug for a linear extension, warn (and the reorg depth)
 * when the new head neither repeats nor extends the previous one.
 */
export function reportL1Head(
  log: LineLogger,
  prev: ProgressRef | undefined,
  next: ProgressRef,
  recordReorgDepth?: (depth: number) => void,
): void {
  if (prev === undefined) {
    log.info('Received first L1 head signal', { l1_head: refString(next) });
  } else if (prev.hash === next.hash) {
    // The same head again: nothing to say.
  } else if (next.parentHash !== undefined && prev.hash === next.parentHash) {
    log.debug('L1 head moved forward', { l1_head: refString(next) });
  } else {
    if (prev.number >= next.number) recordReorgDepth?.(prev.number - next.number);
    log.warn('L1 head signal indicates a possible L1 re-org', {
      old_l1_head: refString(prev),
      new_l1_head_parent: next.parentHash,
      new_l1_head: refString(next),
    });
  }
}

/** The sync status as one line's fields: L1 head, derivation origin, and the L2 heads. */
export function syncStatusFields(s: {
  currentL1: ProgressRef | undefined;
  headL1: ProgressRef | undefined;
  unsafeL2: ProgressRef | undefined;
  safeL2: ProgressRef | undefined;
  finalizedL2: ProgressRef | undefined;
}): Record<string, unknown> {
  return {
    origin: refString(s.currentL1),
    l1_head: refString(s.headL1),
    ...(s.headL1 !== undefined && s.currentL1 !== undefined ? { l1_behind: s.headL1.number - s.currentL1.number } : {}),
    l2_unsafe: refString(s.unsafeL2),
    l2_safe: refString(s.safeL2),
    l2_finalized: refString(s.finalizedL2),
  };
}
