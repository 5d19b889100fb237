// gossipsub peer scoring for --p2p.scoring (op-node p2p/peer_params.go and topic_params.go): "light" is op-node's
// LightPeerScoreParams and NewPeerScoreThresholds with the block-time dependent decays (a slot is one block time,
// an epoch six slots; ScoreDecay(d) = 0.01^(1/(d/slot)) with Go's integer division of durations), "none" turns
// scoring off as op-node does by not scoring at all. op-node keys the topic parameters to the v1 blocks topic only,
// and setup.ts does the same: on a topic without traffic every mesh peer runs a mesh-delivery deficit (about −5
// per topic at these weights), so scoring all four topics would push honest peers below the −10 gossip threshold.
// Invalid blocks on any topic still cost a peer through the application score (peerScores.ts, weight 1).
// Durations are in milliseconds, as @libp2p/gossipsub takes them.
export type ScoringMode = 'none' | 'light';

export const DECAY_TO_ZERO = 0.01;
const MESH_WEIGHT = -0.7;
const MAX_IN_MESH_SCORE = 10;
const DECAY_EPOCH = 5;

export interface TopicScoreParams {
  topicWeight: number;
  timeInMeshWeight: number;
  timeInMeshQuantum: number;
  timeInMeshCap: number;
  firstMessageDeliveriesWeight: number;
  firstMessageDeliveriesDecay: number;
  firstMessageDeliveriesCap: number;
  meshMessageDeliveriesWeight: number;
  meshMessageDeliveriesDecay: number;
  meshMessageDeliveriesCap: number;
  meshMessageDeliveriesThreshold: number;
  meshMessageDeliveriesWindow: number;
  meshMessageDeliveriesActivation: number;
  meshFailurePenaltyWeight: number;
  meshFailurePenaltyDecay: number;
  invalidMessageDeliveriesWeight: number;
  invalidMessageDeliveriesDecay: number;
}

export interface PeerScoreParams {
  topics: Record<string, TopicScoreParams>;
  topicScoreCap: number;
  appSpecificScore(peer: string): number;
  appSpecificWeight: number;
  IPColocationFactorWeight: number;
  IPColocationFactorThreshold: number;
  IPColocationFactorWhitelist: Set<string>;
  behaviourPenaltyWeight: number;
  behaviourPenaltyThreshold: number;
  behaviourPenaltyDecay: number;
  decayInterval: number;
  decayToZero: number;
  retainScore: number;
}

export interface PeerScoreThresholds {
  gossipThreshold: number;
  publishThreshold: number;
  graylistThreshold: number;
  acceptPXThreshold: number;
  opportunisticGraftThreshold: number;
}

/** op-node's ScoreDecay: the factor that decays a value to 1% over `durationMs`, applied once per slot. */
export function scoreDecay(durationMs: number, slotMs: number): number {
  return DECAY_TO_ZERO ** (1 / Math.trunc(durationMs / slotMs));
}

function slotOf(blockTimeS: number): number {
  return (blockTimeS === 0 ? 2 : blockTimeS) * 1000;
}

/** op-node's LightTopicScoreParams for a block time in seconds. */
export function lightTopicScoreParams(blockTimeS: number): TopicScoreParams {
  const slot = slotOf(blockTimeS);
  const epoch = 6 * slot;
  const inMeshCap = Math.trunc(3_600_000 / slot);
  const meshCap = Math.trunc(epoch / slot) * DECAY_EPOCH;
  return {
    topicWeight: 0.8,
    timeInMeshWeight: MAX_IN_MESH_SCORE / inMeshCap,
    timeInMeshQuantum: slot,
    timeInMeshCap: inMeshCap,
    firstMessageDeliveriesWeight: 1,
    firstMessageDeliveriesDecay: scoreDecay(20 * epoch, slot),
    firstMessageDeliveriesCap: 23,
    meshMessageDeliveriesWeight: MESH_WEIGHT,
    meshMessageDeliveriesDecay: scoreDecay(DECAY_EPOCH * epoch, slot),
    meshMessageDeliveriesCap: meshCap,
    meshMessageDeliveriesThreshold: Math.trunc(meshCap / 10),
    meshMessageDeliveriesWindow: 2_000,
    meshMessageDeliveriesActivation: 4 * epoch,
    meshFailurePenaltyWeight: MESH_WEIGHT,
    meshFailurePenaltyDecay: scoreDecay(DECAY_EPOCH * epoch, slot),
    invalidMessageDeliveriesWeight: -140.4475,
    invalidMessageDeliveriesDecay: scoreDecay(50 * epoch, slot),
  };
}

/** op-node's LightPeerScoreParams, with the topic parameters on each of `topics`. */
export function lightPeerScoreParams(
  blockTimeS: number,
  topics: readonly string[],
  appSpecificScore: (peer: string) => number,
): PeerScoreParams {
  const slot = slotOf(blockTimeS);
  const epoch = 6 * slot;
  const topic = lightTopicScoreParams(blockTimeS);
  return {
    topics: Object.fromEntries(topics.map((t) => [t, { ...topic }])),
    topicScoreCap: 34,
    appSpecificScore,
    appSpecificWeight: 1,
    IPColocationFactorWeight: -35,
    IPColocationFactorThreshold: 10,
    IPColocationFactorWhitelist: new Set(),
    behaviourPenaltyWeight: -16,
    behaviourPenaltyThreshold: 6,
    behaviourPenaltyDecay: scoreDecay(10 * epoch, slot),
    decayInterval: slot,
    decayToZero: DECAY_TO_ZERO,
    retainScore: 100 * epoch,
  };
}

/** op-node's NewPeerScoreThresholds. */
export function lightPeerScoreThresholds(): PeerScoreThresholds {
  return {
    gossipThreshold: -10,
    publishThreshold: -40,
    graylistThreshold: -40,
    acceptPXThreshold: 20,
    opportunisticGraftThreshold: 0.05,
  };
}

/**
 * The gossipsub scoring options of a mode. "none": every weight 0 and every threshold at −∞, so no score can
 * ever gate gossip, publishing or grafting (gossipsub keeps computing 0 for everyone).
 */
export function gossipScoring(
  mode: ScoringMode,
  blockTimeS: number,
  topics: readonly string[],
  appSpecificScore: (peer: string) => number,
): { scoreParams: PeerScoreParams; scoreThresholds: PeerScoreThresholds } {
  if (mode === 'light') {
    return {
      scoreParams: lightPeerScoreParams(blockTimeS, topics, appSpecificScore),
      scoreThresholds: lightPeerScoreThresholds(),
    };
  }
  const slot = slotOf(blockTimeS);
  return {
    scoreParams: {
      topics: {},
      topicScoreCap: 0,
      appSpecificScore: () => 0,
      appSpecificWeight: 0,
      IPColocationFactorWeight: 0,
      IPColocationFactorThreshold: 10,
      IPColocationFactorWhitelist: new Set(),
      behaviourPenaltyWeight: 0,
      behaviourPenaltyThreshold: 0,
      behaviourPenaltyDecay: scoreDecay(60 * slot, slot),
      decayInterval: slot,
      decayToZero: DECAY_TO_ZERO,
      retainScore: 600 * slot,
    },
    scoreThresholds: {
      gossipThreshold: Number.NEGATIVE_INFINITY,
      publishThreshold: Number.NEGATIVE_INFINITY,
      graylistThreshold: Number.NEGATIVE_INFINITY,
      acceptPXThreshold: Number.POSITIVE_INFINITY,
      opportunisticGraftThreshold: 0,
    },
  };
}
