// The two lifecycles of tern-pair: stopping tern-node stops tern-exec after it (before tern-node's logger closes),
// and tern-exec stopping on its own stops tern-node too.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { createPairLifecycles, followExecStop } from '../../../../src/main/pair/lifecycles.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

function pairWithLog() {
  const order: string[] = [];
  const pair = createPairLifecycles({
    nodeLogger: logger,
    execLogger: logger,
    closeNodeLog: () => {
      order.push('node logger');
    },
    closeExecLog: () => {
      order.push('exec logger');
    },
  });
  pair.exec.onStop('exec database', () => {
    order.push('exec database');
  });
  pair.exec.onStop('exec listeners', async () => {
    await new Promise((r) => setTimeout(r, 20));
    order.push('exec listeners');
  });
  pair.node.onStop('node driver', () => {
    order.push('node driver');
  });
  pair.node.onStop('node rpc', async () => {
    await new Promise((r) => setTimeout(r, 20));
    order.push('node rpc');
  });
  return { pair, order };
}

describe('tern-pair lifecycles', () => {
  it('stopping tern-node stops it first, then tern-exec, then closes its log', async () => {
    const { pair, order } = pairWithLog();
    let followed = false;
    followExecStop(pair, () => {
      followed = true;
    });
    await pair.node.stop('received SIGTERM');
    expect(order).toEqual(['node rpc', 'node driver', 'exec listeners', 'exec database', 'exec logger', 'node logger']);
    expect(pair.exec.signal.aborted).toBe(true);
    // tern-node was already stopping: the exec-stop follower leaves the exit to whoever stopped it.
    expect(followed).toBe(false);
  });

  it('tern-exec stopping on its own (--rollup.halt) stops tern-node as well, then reports', async () => {
    const { pair, order } = pairWithLog();
    const followed = new Promise<void>((resolve) => followExecStop(pair, resolve));
    void pair.exec.stop('rollup halt');
    await followed;
    expect(pair.node.signal.aborted).toBe(true);
    expect(order).toContain('node driver');
    expect(order).toContain('exec database');
    expect(order.at(-1)).toBe('node logger');
  });
});
