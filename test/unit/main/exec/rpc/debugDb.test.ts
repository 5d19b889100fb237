// debug_dbGet, debug_dbAncient and debug_dbAncients (what --remotedb reads through): raw values of the database,
// "not found" for what it lacks, and frozen blocks read from the ancient store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import * as chain from '../../../../../src/main/exec/db/chain.js';
import { canonicalHashKey } from '../../../../../src/main/exec/db/schema.js';
import { buildTestChain, rpcError, serveTestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-dbget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('debug_db*', () => {
  it('reads keys and frozen blocks, and says "not found" for what is missing', async () => {
    const c = await buildTestChain(logger, join(dir, 'd'));
    try {
      const rpc = serveTestChain(c);
      const hash5 = chain.readCanonicalHash(c.db, 5) as Uint8Array;
      expect(await rpc.call('debug_dbGet', [hex(canonicalHashKey(5))])).toBe(hex(hash5));
      expect((await rpcError(rpc.call('debug_dbGet', ['0x00ff00ff']))).message).toMatch(/not found/);
      expect(await rpc.call('debug_dbAncients', [])).toBe(0);
      // Freeze blocks 0..9 and read them back as the remote side does.
      expect(await chain.freezeBlocks(c.db, { threshold: 10, maxBlocks: 10 })).toBe(10);
      expect(await rpc.call('debug_dbAncients', [])).toBe(10);
      expect(await rpc.call('debug_dbAncient', ['hashes', 5])).toBe(hex(hash5));
      expect(await rpc.call('debug_dbAncient', ['headers', '0x5'])).toBe(
        hex(chain.readHeaderRlp(c.db, 5, hash5) as Uint8Array),
      );
      expect((await rpcError(rpc.call('debug_dbAncient', ['hashes', 10]))).message).toMatch(/not found/);
      expect((await rpcError(rpc.call('debug_dbAncient', ['bogus', 1]))).message).toMatch(/unknown table/);
      expect((await rpcError(rpc.call('debug_dbAncient', ['hashes', -1]))).code).toBe(-32602);
    } finally {
      await c.db.close();
    }
  });
});
