// The `interop` namespace of op-node's managed mode (managed/api.go), over the managed node. Parameters follow
// Go's JSON: uint64 arguments are plain JSON numbers, block ids `{hash, number}`, block refs add `parentHash` and
// `timestamp`, block seals `{hash, number, timestamp}`. The events subscription is `interop_subscribe
// ["events"]`; its notifications carry `{"data": event}` (op-service's EventEntry).

import { checkArity, decodeHash, decodeObject, ParamError, param } from '../../common/rpc/params.js';
import type { RpcHandler, RpcRegistry } from '../../common/rpc/registry.js';
import { RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import { l2RefJson } from '../rpc/json.js';
import type { BlockIdParam, BlockRefParam, ManagedNode } from './managedNode.js';

export const INTEROP_NAMESPACE = 'interop';

/** A Go uint64 from a JSON number (numbers beyond 2^53 cannot name a block here). */
function decodeJsonUint(v: unknown): number {
  if (typeof v !== 'number') {
    throw new ParamError(
      `json: cannot unmarshal ${typeof v === 'string' ? 'string' : typeof v} into Go value of type uint64`,
    );
  }
  if (!Number.isInteger(v) || v < 0)
    throw new ParamError(`json: cannot unmarshal number ${v} into Go value of type uint64`);
  if (!Number.isSafeInteger(v)) throw new ParamError(`number ${v} is out of range`);
  return v;
}

function field<T>(obj: Record<string, unknown>, name: string, decode: (v: unknown) => T): T {
  if (!(name in obj)) throw new ParamError(`missing field "${name}"`);
  try {
    return decode(obj[name]);
  } catch (err) {
    throw new ParamError(`field "${name}": ${(err as Error).message}`);
  }
}

const decodeBlockId = (v: unknown): BlockIdParam => {
  const o = decodeObject(v);
  return { hash: field(o, 'hash', decodeHash), number: field(o, 'number', decodeJsonUint) };
};

const decodeBlockRef = (v: unknown): BlockRefParam => {
  const o = decodeObject(v);
  return {
    hash: field(o, 'hash', decodeHash),
    number: field(o, 'number', decodeJsonUint),
    parentHash: field(o, 'parentHash', decodeHash),
    timestamp: field(o, 'timestamp', decodeJsonUint),
  };
};

/** Go's JSON-RPC answers a plain error with -32000 and its text; so do we (engine and L1 errors included). */
function goErrors(methods: Record<string, RpcHandler>): Record<string, RpcHandler> {
  const out: Record<string, RpcHandler> = {};
  for (const [name, handler] of Object.entries(methods)) {
    out[name] = async (p, ctx) => {
      try {
        return await handler(p, ctx);
      } catch (err) {
        if (err instanceof RpcError || !(err instanceof Error)) throw err;
        throw serverError(err.message);
      }
    };
  }
  return out;
}

const decodeBlockSeal = (v: unknown): BlockIdParam & { timestamp: number } => {
  const o = decodeObject(v);
  return {
    hash: field(o, 'hash', decodeHash),
    number: field(o, 'number', decodeJsonUint),
    timestamp: field(o, 'timestamp', decodeJsonUint),
  };
};

export function registerInteropApi(registry: RpcRegistry, node: ManagedNode): void {
  registry.registerNamespace(
    INTEROP_NAMESPACE,
    goErrors({
      chainID: (p) => {
        checkArity(p, 0);
        return node.chainID();
      },
      pullEvent: (p) => {
        checkArity(p, 0);
        return node.events.pull();
      },
      updateCrossUnsafe: async (p) => {
        checkArity(p, 1);
        await node.updateCrossUnsafe(param(p, 0, decodeBlockId));
        return null;
      },
      updateCrossSafe: async (p) => {
        checkArity(p, 2);
        await node.updateCrossSafe(param(p, 0, decodeBlockId), param(p, 1, decodeBlockId));
        return null;
      },
      updateFinalized: async (p) => {
        checkArity(p, 1);
        await node.updateFinalized(param(p, 0, decodeBlockId));
        return null;
      },
      invalidateBlock: async (p) => {
        checkArity(p, 1);
        await node.invalidateBlock(param(p, 0, decodeBlockSeal));
        return null;
      },
      anchorPoint: (p) => {
        checkArity(p, 0);
        return node.anchorPoint();
      },
      reset: async (p) => {
        checkArity(p, 5);
        await node.reset(
          param(p, 0, decodeBlockId),
          param(p, 1, decodeBlockId),
          param(p, 2, decodeBlockId),
          param(p, 3, decodeBlockId),
          param(p, 4, decodeBlockId),
        );
        return null;
      },
      fetchReceipts: (p) => {
        checkArity(p, 1);
        return node.fetchReceipts(param(p, 0, decodeHash));
      },
      blockRefByNumber: (p) => {
        checkArity(p, 1);
        return node.blockRefByNumber(param(p, 0, decodeJsonUint));
      },
      outputV0AtTimestamp: (p) => {
        checkArity(p, 1);
        return node.outputV0AtTimestamp(param(p, 0, decodeJsonUint));
      },
      pendingOutputV0AtTimestamp: (p) => {
        checkArity(p, 1);
        return node.pendingOutputV0AtTimestamp(param(p, 0, decodeJsonUint));
      },
      l2BlockRefByTimestamp: async (p) => {
        checkArity(p, 1);
        return l2RefJson(await node.l2BlockRefByTimestamp(param(p, 0, decodeJsonUint)));
      },
      provideL1: (p) => {
        checkArity(p, 1);
        node.provideL1(param(p, 0, decodeBlockRef));
        return null;
      },
    }),
    { authenticated: true },
  );
  registry.registerSubscription(
    INTEROP_NAMESPACE,
    'events',
    (p, ctx) => {
      checkArity(p, 0);
      const sub = ctx.createSubscription();
      node.events.subscribe(sub);
      return sub;
    },
    { authenticated: true },
  );
}
