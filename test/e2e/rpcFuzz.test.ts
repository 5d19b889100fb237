// The RPC fuzzer in CI: 10,000 random requests over every namespace of a tern-exec --dev (bench/fuzz/; `npm run
// fuzz` runs a million): no crash, every answer JSON, every reply well-formed, no -32603 for bad input, and the
// process's memory stays bounded.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevExec, startDevExec } from '../../bench/fuzz/devExec.js';
import { fuzz } from '../../bench/fuzz/rpcFuzz.js';
import { ROOT } from '../helpers/paths.js';

let node: DevExec;
beforeAll(async () => {
  node = await startDevExec(join(ROOT, 'bin/tern-exec.js'));
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe('RPC fuzzer', () => {
  it('10,000 random requests: no crash, JSON answers, well-formed replies, no -32603, bounded RSS', async () => {
    const before = node.rss() ?? 0;
    let peak = before;
    const stats = await fuzz(node.rpc, {
      count: 10_000,
      seed: 22,
      concurrency: 8,
      onProgress: () => {
        peak = Math.max(peak, node.rss() ?? 0);
      },
    });
    peak = Math.max(peak, node.rss() ?? 0);
    expect(stats.examples).toEqual([]);
    expect(stats).toMatchObject({
      requests: 10_000,
      nonJson: 0,
      internalErrors: 0,
      malformedReplies: 0,
      transportErrors: 0,
    });
    expect(stats.replies).toBeGreaterThan(9000);
    expect(node.child.exitCode).toBeNull();
    expect(peak).toBeLessThan(before + 512 * 1024 * 1024);
    expect(await node.stop()).toBe(0);
  }, 170_000);
});
