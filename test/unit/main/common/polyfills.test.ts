import { describe, expect, it } from 'vitest';
import { POLYFILLS_LOADED } from '../../../../src/main/common/polyfills.js';

describe('runtime polyfills', () => {
  it('provides Promise.withResolvers', async () => {
    expect(POLYFILLS_LOADED).toBe(true);
    const { promise, resolve } = (
      Promise as unknown as { withResolvers<T>(): { promise: Promise<T>; resolve(v: T): void } }
    ).withResolvers<number>();
    resolve(7);
    await expect(promise).resolves.toBe(7);
  });

  it('lets libp2p 3 start and stop a node on this Node version', async () => {
    const { createLibp2p } = await import('libp2p');
    const node = await createLibp2p({});
    await node.start();
    expect(node.status).toBe('started');
    expect(node.peerId.toString()).toMatch(/^12D3Koo|^16Uiu2/);
    await node.stop();
    expect(node.status).toBe('stopped');
  });
});
