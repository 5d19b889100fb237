// The `dev` namespace of `tern-exec --dev` (geth registers its simulated beacon's API under the same name):
// dev_reorg(depth), the dev chain's equivalent of anvil_reorg, replaces the last `depth` blocks with as many empty
// blocks at the same slots (see DevSealer.reorg); the transactions they held go back to the pool where they can.
import { TernError } from '../../common/errors.js';
import { checkArity, type Decoder, decodeUint, ParamError, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { DevReorg } from './sealer.js';

export interface DevRpcSealer {
  reorg(depth: number): Promise<DevReorg>;
}

const qty = (n: bigint) => `0x${n.toString(16)}`;

/** A block count: a JSON integer (anvil's style) or a hex quantity (geth's). */
const decodeDepth: Decoder<number> = (v) => {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new ParamError(`depth must be a non-negative integer, got ${v}`);
    return v;
  }
  return decodeUint(v);
};

export function devNamespace(sealer: DevRpcSealer): Record<string, RpcHandler> {
  return {
    reorg: async (params) => {
      checkArity(params, 1);
      const depth = param(params, 0, decodeDepth);
      let r: DevReorg;
      try {
        r = await sealer.reorg(depth);
      } catch (err) {
        if (err instanceof TernError && err.code === 'DEV_REORG') throw serverError(err.message);
        throw err;
      }
      const ref = (b: { number: bigint; hash: Uint8Array }) => ({ number: qty(b.number), hash: hex(b.hash) });
      return {
        depth: r.depth,
        oldHead: ref(r.oldHead),
        newHead: ref(r.newHead),
        ancestor: ref(r.ancestor),
        dropped: r.dropped.map(hex),
      };
    },
  };
}
