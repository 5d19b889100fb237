// --exitwhensynced: the node stops at the first head less than ten minutes old (geth's DoneEvent check), once.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { exitWhenSynced, SYNCED_MAX_AGE_SECONDS } from '../../../../../src/main/exec/chain/exitWhenSynced.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const NOW = 1_800_000_000;
const head = (number: bigint, timestamp: number) => ({
  number,
  hash: new Uint8Array(32),
  header: { number, timestamp: BigInt(timestamp) } as unknown as Header,
});

describe('--exitwhensynced', () => {
  it('stops at the first head younger than ten minutes, and only once', () => {
    const db = {};
    const reasons: string[] = [];
    const off = exitWhenSynced(db, { logger, stop: (r) => reasons.push(r), now: () => NOW * 1000 });
    const events = headEvents(db);
    events.emit(head(1n, NOW - 3600));
    events.emit(head(2n, NOW - SYNCED_MAX_AGE_SECONDS));
    expect(reasons).toEqual([]);
    events.emit(head(3n, NOW - SYNCED_MAX_AGE_SECONDS + 1));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/synchronisation completed/);
    events.emit(head(4n, NOW));
    expect(reasons).toHaveLength(1);
    expect(events.listenerCount).toBe(0);
    off();
  });

  it('does nothing after it is unsubscribed', () => {
    const db = {};
    const reasons: string[] = [];
    const off = exitWhenSynced(db, { logger, stop: (r) => reasons.push(r), now: () => NOW * 1000 });
    off();
    headEvents(db).emit(head(1n, NOW));
    expect(reasons).toEqual([]);
  });
});
