// dev_reorg: parameters (a JSON integer or a hex quantity), the result's JSON shape, and refusals as server errors.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import type { CallContext } from '../../../../../src/main/common/rpc/registry.js';
import { devNamespace } from '../../../../../src/main/exec/dev/rpc.js';
import type { DevReorg } from '../../../../../src/main/exec/dev/sealer.js';

const ctx = {} as CallContext;
const h = (n: number) => new Uint8Array(32).fill(n);

function stub() {
  const calls: number[] = [];
  const sealer = {
    reorg: async (depth: number): Promise<DevReorg> => {
      calls.push(depth);
      if (depth > 5) throw new TernError('DEV_REORG', 'would replace the finalized block #32');
      return {
        depth,
        oldHead: { number: 40n, hash: h(1) },
        newHead: { number: 40n, hash: h(2) },
        ancestor: { number: 40n - BigInt(depth), hash: h(3) },
        dropped: [h(4)],
      };
    },
  };
  return { calls, ns: devNamespace(sealer) };
}

describe('dev_reorg', () => {
  it('takes a JSON integer or a hex quantity and answers with the heads and the dropped transactions', async () => {
    const { calls, ns } = stub();
    const r = await ns.reorg!([3], ctx);
    expect(r).toEqual({
      depth: 3,
      oldHead: { number: '0x28', hash: `0x${'01'.repeat(32)}` },
      newHead: { number: '0x28', hash: `0x${'02'.repeat(32)}` },
      ancestor: { number: '0x25', hash: `0x${'03'.repeat(32)}` },
      dropped: [`0x${'04'.repeat(32)}`],
    });
    await ns.reorg!(['0x2'], ctx);
    expect(calls).toEqual([3, 2]);
  });

  it('refuses bad parameters as invalid params and a refused reorg as a server error', async () => {
    const { calls, ns } = stub();
    await expect(ns.reorg!([], ctx)).rejects.toMatchObject({ code: -32602 });
    await expect(ns.reorg!([1.5], ctx)).rejects.toMatchObject({ code: -32602 });
    await expect(ns.reorg!(['x'], ctx)).rejects.toMatchObject({ code: -32602 });
    await expect(ns.reorg!([9], ctx)).rejects.toMatchObject({
      code: -32000,
      message: expect.stringMatching(/finalized block #32/),
    });
    expect(calls).toEqual([9]);
  });
});
