// --p2p.scoring: op-node's light peer-score parameters and thresholds for a 2 s block time, the values op-node's
// own tests pin (peer_params_test.go: decay 0.9261187281287935, thresholds −10/−40/−40/20/0.05), and gossipsub
// taking them.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import {
  gossipScoring,
  lightPeerScoreParams,
  lightPeerScoreThresholds,
  lightTopicScoreParams,
  scoreDecay,
} from '../../../../../src/main/node/p2p/scoreParams.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const TOPICS = ['/optimism/10/0/blocks', '/optimism/10/1/blocks', '/optimism/10/2/blocks', '/optimism/10/3/blocks'];

describe('light scoring (op-node peer_params.go / topic_params.go)', () => {
  it('has op-node peer parameters for a 2 s block time', () => {
    // op-node's TestGetPeerScoreParams_Light: 10 epochs of decay to 1% is 0.9261187281287935 per slot.
    expect(scoreDecay(120_000, 2_000)).toBe(0.9261187281287935);
    const p = lightPeerScoreParams(2, TOPICS, () => 0);
    expect(Object.keys(p.topics)).toEqual(TOPICS);
    expect(p.topicScoreCap).toBe(34);
    expect(p.appSpecificWeight).toBe(1);
    expect(p.IPColocationFactorWeight).toBe(-35);
    expect(p.IPColocationFactorThreshold).toBe(10);
    expect(p.IPColocationFactorWhitelist.size).toBe(0);
    expect(p.behaviourPenaltyWeight).toBe(-16);
    expect(p.behaviourPenaltyThreshold).toBe(6);
    expect(p.behaviourPenaltyDecay).toBe(0.9261187281287935);
    expect(p.decayInterval).toBe(2_000);
    expect(p.decayToZero).toBe(0.01);
    expect(p.retainScore).toBe(1_200_000);
    // The same decay for a 1 s block time (op-node's test case): 60 slots either way.
    expect(lightPeerScoreParams(1, TOPICS, () => 0).behaviourPenaltyDecay).toBe(0.9261187281287935);
    // Block time 0 falls back to a 2 s slot (op-node's TestParamsZeroBlockTime).
    expect(lightPeerScoreParams(0, TOPICS, () => 0).decayInterval).toBe(2_000);
  });

  it('has op-node topic parameters for a 2 s block time', () => {
    const t = lightTopicScoreParams(2);
    expect(t).toEqual({
      topicWeight: 0.8,
      timeInMeshWeight: 10 / 1800,
      timeInMeshQuantum: 2_000,
      timeInMeshCap: 1800,
      firstMessageDeliveriesWeight: 1,
      firstMessageDeliveriesDecay: 0.01 ** (1 / 120),
      firstMessageDeliveriesCap: 23,
      meshMessageDeliveriesWeight: -0.7,
      meshMessageDeliveriesDecay: 0.01 ** (1 / 30),
      meshMessageDeliveriesCap: 30,
      meshMessageDeliveriesThreshold: 3,
      meshMessageDeliveriesWindow: 2_000,
      meshMessageDeliveriesActivation: 48_000,
      meshFailurePenaltyWeight: -0.7,
      meshFailurePenaltyDecay: 0.01 ** (1 / 30),
      invalidMessageDeliveriesWeight: -140.4475,
      invalidMessageDeliveriesDecay: 0.01 ** (1 / 300),
    });
  });

  it('has op-node thresholds', () => {
    expect(lightPeerScoreThresholds()).toEqual({
      gossipThreshold: -10,
      publishThreshold: -40,
      graylistThreshold: -40,
      acceptPXThreshold: 20,
      opportunisticGraftThreshold: 0.05,
    });
  });

  it('feeds the application score in light mode and nothing in none mode', () => {
    const light = gossipScoring('light', 2, TOPICS, (p) => (p === 'x' ? -7 : 0));
    expect(light.scoreParams.appSpecificScore('x')).toBe(-7);
    const none = gossipScoring('none', 2, TOPICS, () => -7);
    expect(none.scoreParams.appSpecificScore('x')).toBe(0);
    expect(none.scoreParams.topics).toEqual({});
    expect(none.scoreParams.IPColocationFactorWeight).toBe(0);
    expect(none.scoreParams.behaviourPenaltyWeight).toBe(0);
    expect(none.scoreThresholds.graylistThreshold).toBe(Number.NEGATIVE_INFINITY);
  });

  it.each(['light', 'none'] as const)('is accepted by gossipsub (%s)', async (mode) => {
    const host = await P2PHost.create(
      {
        privateKey: randomBytes(32),
        listenIp: '127.0.0.1',
        listenTcp: 0,
        staticPeers: [],
        netrestrict: [],
        peersHi: 30,
        scoring: gossipScoring(mode, 2, TOPICS, () => 0),
      },
      { logger },
    );
    await host.start();
    try {
      const pubsub = host.node.services.pubsub as unknown as {
        score: { params: { topics: Record<string, unknown>; topicScoreCap: number } };
      };
      expect(Object.keys(pubsub.score.params.topics)).toEqual(mode === 'light' ? TOPICS : []);
      expect(pubsub.score.params.topicScoreCap).toBe(mode === 'light' ? 34 : 0);
    } finally {
      await host.stop();
    }
  });
});
