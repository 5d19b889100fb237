// The `net` namespace (geth's NetAPI): the network id (--networkid, or the chain id when it is 0), always
// listening (as geth), and the peer count of the execution-layer network (0 when it is off).
import { checkArity } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';

export interface NetInfo {
  /** --networkid, 0 for the chain id. */
  networkId: bigint;
  chainId: bigint;
  peerCount?: () => number;
}

export function netNamespace(info: NetInfo): Record<string, RpcHandler> {
  const version = (info.networkId === 0n ? info.chainId : info.networkId).toString(10);
  return {
    version: (params) => {
      checkArity(params, 0);
      return version;
    },
    listening: (params) => {
      checkArity(params, 0);
      return true;
    },
    peerCount: (params) => {
      checkArity(params, 0);
      return `0x${(info.peerCount?.() ?? 0).toString(16)}`;
    },
  };
}
