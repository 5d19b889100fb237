// The `debug` namespace methods that read the chain in its consensus encoding (geth's DebugAPI GetRaw*): the RLP
// of a header or block, each receipt's binary encoding, and a transaction's envelope; and debug_executionWitness,
// the witness stateless execution needs to re-run a block (../witness/); and debug_preimage, a keccak preimage that
// --vmdebug or --cache.preimages recorded (../chain/preimages.ts).

import { MAX_KEY_LENGTH } from '../../common/db/interface.js';
import {
  checkArity,
  type Decoder,
  decodeBlockNumber,
  decodeBlockNumberOrHash,
  decodeData,
  decodeHash,
  decodeString,
  decodeUint64,
  invalidArgument,
  param,
} from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { encodeBlock, transactionHash } from '../../primitives/block/block.js';
import { fromHex } from '../../primitives/bytes.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';
import { readPreimage } from '../chain/preimages.js';
import { ANCIENT_TABLES, type AncientTable } from '../db/freezer.js';
import { decodeTraceConfig } from '../tracing/config.js';
import { TraceRunner } from '../tracing/runner.js';
import { generateWitness } from '../witness/generate.js';
import { witnessToJson } from '../witness/witness.js';
import type { ExecRpcBackend } from './backend.js';
import { blockRef, headerByHash, headerByNumber } from './blockTag.js';
import { decodeCallArgs } from './callArgs.js';
import { hex } from './format.js';

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

/** geth's uint64 argument: a JSON integer (what its remotedb sends), or a hex quantity. */
const decodeAncientNumber: Decoder<bigint> = (v) => {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw invalidArgument(1, 'not a uint64');
    return BigInt(v);
  }
  return decodeUint64(v);
};

const hashOf = (r: HeaderRef | Uint8Array): Uint8Array => (r instanceof Uint8Array ? r : r.hash);

export function debugNamespace(b: ExecRpcBackend): Record<string, RpcHandler> {
  return {
    ...traceMethods(b),
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
    // geth's debug_dbGet / debug_dbAncient / debug_dbAncients: raw database reads, what --remotedb reads through.
    dbGet: (params) => {
      checkArity(params, 1);
      const key = param(params, 0, decodeData);
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw serverError('not found');
      const value = b.db.kv.get(key);
      if (value === undefined) throw serverError('not found');
      return hex(value);
    },
    dbAncient: (params) => {
      checkArity(params, 2);
      const kind = param(params, 0, decodeString);
      const number = param(params, 1, decodeAncientNumber);
      if (!(ANCIENT_TABLES as readonly string[]).includes(kind)) throw serverError(`unknown table ${kind}`);
      const item =
        number > BigInt(Number.MAX_SAFE_INTEGER)
          ? undefined
          : b.db.ancients?.ancient(kind as AncientTable, Number(number));
      if (item === undefined) throw serverError('not found');
      return hex(item);
    },
    dbAncients: (params) => {
      checkArity(params, 0);
      return b.db.ancients?.ancients() ?? 0;
    },
    // geth's DebugAPI.Preimage: the stored keccak preimage (recorded with --vmdebug / --cache.preimages).
    preimage: (params) => {
      checkArity(params, 1);
      const hash = fromHex(param(params, 0, decodeHash));
      const found = readPreimage(b.db.kv, hash);
      if (found === undefined) throw serverError('unknown preimage');
      return hex(found);
    },
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

/** debug_trace*: re-execution with the struct logger or a named tracer (../tracing/). */
function traceMethods(b: ExecRpcBackend): Record<string, RpcHandler> {
  const runner = new TraceRunner(b);
  return {
    traceTransaction: (params) => {
      checkArity(params, 1, 2);
      const hash = fromHex(param(params, 0, decodeHash));
      return runner.traceTransaction(hash, decodeTraceConfig(params, 1));
    },
    traceBlockByNumber: (params) => {
      checkArity(params, 1, 2);
      const n = param(params, 0, decodeBlockNumber);
      const select = (view: ChainView): HeaderRef => {
        const ref = headerByNumber(view, n);
        if (ref === undefined) throw serverError(`block #${n} not found`);
        return ref;
      };
      return runner.traceBlock(select, decodeTraceConfig(params, 1));
    },
    traceBlockByHash: (params) => {
      checkArity(params, 1, 2);
      const hash = param(params, 0, decodeHash);
      const select = (view: ChainView): HeaderRef => {
        const ref = headerByHash(view, hash);
        if (ref === undefined) throw serverError(`block ${hash} not found`);
        return ref;
      };
      return runner.traceBlock(select, decodeTraceConfig(params, 1));
    },
    traceCall: (params) => {
      checkArity(params, 2, 3);
      const args = param(params, 0, decodeCallArgs);
      const sel = param(params, 1, decodeBlockNumberOrHash);
      const extra = params[2];
      if (extra !== null && typeof extra === 'object') {
        for (const key of ['stateOverrides', 'blockOverrides']) {
          const v = (extra as Record<string, unknown>)[key];
          if (v !== undefined && v !== null) throw serverError(`debug_traceCall: ${key} are not supported yet`);
        }
      }
      return runner.traceCall(args, sel, decodeTraceConfig(params, 2));
    },
  };
}
