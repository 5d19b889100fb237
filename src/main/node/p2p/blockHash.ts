// The block hash a gossiped payload must carry: its header rebuilt from the payload fields of the block version
// (v2 adds the withdrawals root of an empty list, v3 the blob gas fields and parent beacon block root, v4 — Isthmus
// — the payload's own withdrawalsRoot and the empty requests hash) and hashed. Validation compares it with
// payload.blockHash, as op-node's CheckBlockHash does.
import { withdrawalsRoot } from '../../primitives/block/block.js';
import { EMPTY_REQUESTS_HASH, type Header, headerHash } from '../../primitives/block/header.js';
import { payloadHeaderBase } from '../../protocol/engine/payloadHeader.js';
import type { ExecutionPayload } from '../engine/interface.js';
import type { BlockVersion } from '../signer/gossipPayload.js';

export function payloadBlockHash(
  p: ExecutionPayload,
  version: BlockVersion,
  parentBeaconBlockRoot?: Uint8Array | undefined,
): Uint8Array {
  const header: Header = payloadHeaderBase(p);
  if (version >= 2) {
    header.withdrawalsRoot = version >= 4 ? p.withdrawalsRoot : withdrawalsRoot(p.withdrawals ?? []);
  }
  if (version >= 3) {
    header.blobGasUsed = p.blobGasUsed ?? 0n;
    header.excessBlobGas = p.excessBlobGas ?? 0n;
    header.parentBeaconBlockRoot = parentBeaconBlockRoot;
  }
  if (version >= 4) header.requestsHash = EMPTY_REQUESTS_HASH;
  return headerHash(header);
}
