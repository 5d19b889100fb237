// The `debug` namespace methods that read the chain in its consensus encoding (geth's DebugAPI GetRaw*): the RLP
// of a header or block, each receipt's binary encoding, and a transaction's envelope; and debug_executionWitness,
// the witness stateless execution needs to re-run a block (../witness/).
import { serverError } from '../../common/rpc/errors.js';
import { checkArity, decodeBlockNumberOrHash, decodeHash, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { encodeBlock, transactionHash } from '../../primitives/block/block.js';
import { generateWitness } from '../witness/generate.js';
import { witnessToJson } from '../witness/witness.js';
import type { ExecRpcBackend } from './backend.js';
import { blockRef, headerByHash } from './blockTag.js';
import type { ChainView, HeaderRef } from './chainView.js';
import { equalBytes } from './chainView.js';
import { hex } from './format.js';

const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

/**
 * geth's GetRaw* resolution: a hash is taken as given, a number or tag through the canonical chain, where an
 * unknown block is answered with an empty result rather than an error.
 */
function resolve(view: ChainView, params: unknown[]): HeaderRef | Uint8Array | undefined {
  checkArity(params, 1);
  const sel = param(params, 0, decodeBlockNumberOrHash);
  if (sel.blockHash !== undefined) return fromHex(sel.blockHash);
  return blockRef(view, sel);
}

const hashOf = (r: HeaderRef | Uint8Array): Uint8Array => (r instanceof Uint8Array ? r : r.hash);

export function debugNamespace(b: ExecRpcBackend): Record<string, RpcHandler> {
  return {
    getRawHeader: (params) =>
      b.read((view) => {
        const r = resolve(view, params);
        if (r === undefined) return '0x';
        const raw = view.rawHeader(hashOf(r));
        if (raw === undefined) throw serverError(`header #${hex(hashOf(r))} not found`);
        return hex(raw);
      }),
    getRawBlock: (params) =>
      b.read((view) => {
        const r = resolve(view, params);
        if (r === undefined) return '0x';
        const block = view.block(hashOf(r));
        if (block === undefined) throw serverError(`block #${hex(hashOf(r))} not found`);
        return hex(encodeBlock(block));
      }),
    getRawReceipts: (params) =>
      b.read((view) => {
        const r = resolve(view, params);
        if (r === undefined) return null;
        const ref = r instanceof Uint8Array ? headerByHash(view, r) : r;
        return (ref && view.rawReceipts(ref))?.map(hex) ?? [];
      }),
    executionWitness: (params) =>
      b.read(async (view) => {
        const r = resolve(view, params);
        if (r === undefined) throw serverError('block not found');
        return witnessToJson(await generateWitness(view, hashOf(r)));
      }),
    getRawTransaction: (params) => {
      checkArity(params, 1);
      const hash = fromHex(param(params, 0, decodeHash));
      return b.read((view) => {
        const lookup = view.txLookup(hash);
        if (!lookup) return '0x';
        const ref = view.headerByNumber(BigInt(lookup.blockNumber));
        const raw = ref && view.block(ref.hash)?.transactions[lookup.index];
        return raw && equalBytes(transactionHash(raw), hash) ? hex(raw) : '0x';
      });
    },
  };
}
