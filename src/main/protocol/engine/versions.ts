// Which Engine API method version tern-node calls for a block, by the fork active at its timestamp (op-node's
// engine client): newPayload V2 before Ecotone, V3 from Ecotone, V4 from Isthmus; forkchoiceUpdated with payload
// attributes V1 before Canyon, V2 from Canyon, V3 from Ecotone (V3 without attributes); getPayload like newPayload.
// Both engines (node/engine/http.ts and inProcess.ts) call through this one table.
import { isCanyon, isEcotone, isIsthmus, type RollupConfig } from '../../primitives/rollup/config.js';

export type NewPayloadVersion = 2 | 3 | 4;
export type ForkchoiceUpdatedVersion = 1 | 2 | 3;
export type GetPayloadVersion = 2 | 3 | 4;

export function newPayloadVersion(cfg: RollupConfig, timestamp: number): NewPayloadVersion {
  return isIsthmus(cfg, timestamp) ? 4 : isEcotone(cfg, timestamp) ? 3 : 2;
}

/** `attributesTimestamp`: the timestamp of the payload attributes, undefined for a plain forkchoice update. */
export function forkchoiceUpdatedVersion(
  cfg: RollupConfig,
  attributesTimestamp: number | undefined,
): ForkchoiceUpdatedVersion {
  if (attributesTimestamp === undefined || isEcotone(cfg, attributesTimestamp)) return 3;
  return isCanyon(cfg, attributesTimestamp) ? 2 : 1;
}

export function getPayloadVersion(cfg: RollupConfig, timestamp: number): GetPayloadVersion {
  return newPayloadVersion(cfg, timestamp);
}
