// The Engine API method version per fork that both of tern-node's engines call (op-node's engine client).
import { describe, expect, it } from 'vitest';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import {
  forkchoiceUpdatedVersion,
  getPayloadVersion,
  newPayloadVersion,
} from '../../../../../src/main/protocol/engine/versions.js';

// Regolith from genesis, Canyon at 100, Ecotone at 200, Isthmus at 300: only the fork times are read.
const cfg = {
  forks: { regolith: 0, canyon: 100, delta: 100, ecotone: 200, fjord: 200, isthmus: 300 },
} as unknown as RollupConfig;

describe('Engine API versions by fork', () => {
  it('newPayload and getPayload: V2 before Ecotone, V3 from Ecotone, V4 from Isthmus', () => {
    for (const [t, v] of [
      [0, 2],
      [150, 2],
      [199, 2],
      [200, 3],
      [299, 3],
      [300, 4],
    ] as const) {
      expect(newPayloadVersion(cfg, t), `t=${t}`).toBe(v);
      expect(getPayloadVersion(cfg, t), `t=${t}`).toBe(v);
    }
  });

  it('forkchoiceUpdated: V1 before Canyon, V2 from Canyon, V3 from Ecotone, V3 without attributes', () => {
    expect(forkchoiceUpdatedVersion(cfg, 0)).toBe(1);
    expect(forkchoiceUpdatedVersion(cfg, 99)).toBe(1);
    expect(forkchoiceUpdatedVersion(cfg, 100)).toBe(2);
    expect(forkchoiceUpdatedVersion(cfg, 200)).toBe(3);
    expect(forkchoiceUpdatedVersion(cfg, 300)).toBe(3);
    expect(forkchoiceUpdatedVersion(cfg, undefined)).toBe(3);
  });
});
