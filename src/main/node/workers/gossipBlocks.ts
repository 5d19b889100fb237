// Gossip block validation task module: the stateless checks of a gossiped block (checkBlockMessage: snappy, the
// signature, SSZ, timestamp window, block hash, version rules) on a pool thread, for blocks large enough that
// the coordinator should not spend tens of milliseconds on each. It runs tern-node's own validator, so it belongs
// to tern-node (pool/workerPath.ts names it). The outcome, decoded payload included, is cloned back.
import { fail, ok, type TaskResult } from '../../../workers/task.js';
import { type BlockCheckContext, type BlockValidation, checkBlockMessage } from '../p2p/blockValidator.js';
import type { BlockVersion } from '../signer/gossipPayload.js';

export interface CheckBlockInput {
  ctx: BlockCheckContext;
  topicVersion: BlockVersion;
  /** The raw (snappy) message as received; a copy, gossipsub keeps the original to forward it. */
  data: Uint8Array;
}

export function checkBlock(input: CheckBlockInput): TaskResult<BlockValidation> {
  try {
    return ok(checkBlockMessage(input.ctx, input.topicVersion, input.data));
  } catch (err) {
    return fail(err);
  }
}
