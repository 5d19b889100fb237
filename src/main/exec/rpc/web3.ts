// The `web3` namespace (geth's web3API): the client version string and keccak-256 of the given bytes.
import { checkArity, decodeData, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { keccak256 } from '../../native/keccak.js';
import { hex } from './format.js';

export function web3Namespace(clientVersion: string): Record<string, RpcHandler> {
  return {
    clientVersion: (params) => {
      checkArity(params, 0);
      return clientVersion;
    },
    sha3: (params) => {
      checkArity(params, 1);
      return hex(keccak256(param(params, 0, decodeData)));
    },
  };
}
