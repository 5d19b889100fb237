// The header fields an execution payload carries for every fork: the block's header minus what each fork adds
// (withdrawals root, blob gas, beacon root, requests hash). newPayload rebuilds blocks from it and gossip validation
// recomputes the block hash from it, so both read the payload the same way.
import { transactionsRoot } from '../../primitives/block/block.js';
import { EMPTY_UNCLE_HASH, type Header } from '../../primitives/block/header.js';
import type { ExecutionPayload } from './types.js';

/** The payload's header without the fork-dependent fields (the caller adds those it needs). */
export function payloadHeaderBase(p: ExecutionPayload): Header {
  return {
    parentHash: p.parentHash,
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: p.feeRecipient,
    stateRoot: p.stateRoot,
    transactionsRoot: transactionsRoot(p.transactions),
    receiptsRoot: p.receiptsRoot,
    logsBloom: p.logsBloom,
    difficulty: 0n,
    number: p.blockNumber,
    gasLimit: p.gasLimit,
    gasUsed: p.gasUsed,
    timestamp: p.timestamp,
    extraData: p.extraData,
    mixHash: p.prevRandao,
    nonce: new Uint8Array(8),
    baseFeePerGas: p.baseFeePerGas,
  };
}
