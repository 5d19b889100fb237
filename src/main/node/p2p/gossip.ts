// Block gossip (op-node's gossip.go): the node subscribes to the blocks topic of every payload version, validates
// each message (blockValidator.ts) before gossipsub forwards it, hands accepted payloads to `onBlock`, and publishes
// the blocks the sequencer seals from a bounded queue, so block building never waits on the network.
import type { Message } from '@libp2p/gossipsub';
import type { PeerId } from '@libp2p/interface';
import type { Logger } from '../../common/logger/index.js';
import { snappyCompress } from '../../common/snappy.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { ExecutionPayload } from '../engine/interface.js';
import type { BlockVersion } from '../signer/gossipPayload.js';
import type { BlockValidation, BlockValidator } from './blockValidator.js';
import { allowLargeMessages } from './gossipParams.js';
import type { TernLibp2p } from './host.js';
import { BLOCK_VERSIONS, blocksTopic, versionOfTopic } from './topics.js';

export interface GossipBlock {
  payload: ExecutionPayload;
  parentBeaconBlockRoot: Uint8Array | undefined;
  from: string;
}

export interface GossipEvents {
  /** An accepted block (already forwarded by gossipsub). */
  onBlock(block: GossipBlock): void;
  /** Every validation outcome, for scoring, metrics and logs. */
  onValidation?(peer: string, outcome: BlockValidation): void;
}

/** Sealed blocks waiting to go out; when full the oldest is dropped (a newer block supersedes it). */
const PUBLISH_QUEUE = 32;

export interface GossipStats {
  accepted: number;
  ignored: number;
  rejected: number;
  published: number;
  publishDropped: number;
}

export interface GossipsubParts {
  timeInMesh: number;
  firstMessageDeliveries: number;
  meshMessageDeliveries: number;
  invalidMessageDeliveries: number;
  behavioralPenalty: number;
}

interface PeerStatsLike {
  behaviourPenalty: number;
  topics: Record<
    string,
    {
      inMesh: boolean;
      meshTime: number;
      firstMessageDeliveries: number;
      meshMessageDeliveries: number;
      invalidMessageDeliveries: number;
    }
  >;
}

export class BlockGossip {
  readonly #cfg: RollupConfig;
  readonly #node: TernLibp2p;
  readonly #validator: BlockValidator;
  readonly #events: GossipEvents;
  readonly #log: Logger;
  readonly #queue: Array<{ version: BlockVersion; message: Uint8Array }> = [];
  #draining = false;
  readonly stats: GossipStats = { accepted: 0, ignored: 0, rejected: 0, published: 0, publishDropped: 0 };

  constructor(
    cfg: RollupConfig,
    node: TernLibp2p,
    validator: BlockValidator,
    events: GossipEvents,
    deps: { logger: Logger },
  ) {
    this.#cfg = cfg;
    this.#node = node;
    this.#validator = validator;
    this.#events = events;
    this.#log = deps.logger.child('gossip');
  }

  /** Topic names of this chain, v1 … v4. */
  topics(): string[] {
    return BLOCK_VERSIONS.map((v) => blocksTopic(this.#cfg.l2ChainId, v));
  }

  /** Joins every blocks topic (gossipsub must be started). */
  subscribe(): void {
    for (const topic of this.topics()) this.#node.services.pubsub.subscribe(topic);
  }

  /** Installs the validators, the large-message support and the delivery handler (before the host starts). */
  attach(): void {
    const pubsub = this.#node.services.pubsub as unknown as {
      topicValidators: Map<
        string,
        (peer: PeerId, msg: Message) => 'accept' | 'ignore' | 'reject' | Promise<'accept' | 'ignore' | 'reject'>
      >;
      addEventListener(type: 'message', fn: (e: CustomEvent<Message>) => void): void;
    };
    allowLargeMessages(pubsub);
    const accepted = new WeakMap<Uint8Array, BlockValidation>();
    for (const v of BLOCK_VERSIONS) {
      const topic = blocksTopic(this.#cfg.l2ChainId, v);
      pubsub.topicValidators.set(topic, (peer, msg) => {
        // gossipsub awaits its topic validators: large blocks validate on the pool (validateMessage), and the
        // message is forwarded or dropped once the outcome is known.
        const outcome = this.#validator.validateMessage(v, msg.data);
        return outcome instanceof Promise ? outcome.then((o) => settle(peer, msg, o)) : settle(peer, msg, outcome);
      });
    }
    const settle = (peer: PeerId, msg: Message, outcome: BlockValidation): 'accept' | 'ignore' | 'reject' => {
      const from = peer.toString();
      if (outcome.result === 'accept') {
        this.stats.accepted++;
        accepted.set(msg.data, outcome);
      } else {
        if (outcome.result === 'ignore') this.stats.ignored++;
        else this.stats.rejected++;
        this.#log.debug('Gossip block not accepted', { peer: from, result: outcome.result, reason: outcome.reason });
      }
      this.#events.onValidation?.(from, outcome);
      return outcome.result;
    };
    pubsub.addEventListener('message', (e) => {
      const msg = e.detail;
      if (versionOfTopic(this.#cfg.l2ChainId, msg.topic) === undefined) return;
      const outcome = accepted.get(msg.data);
      if (outcome?.result !== 'accept') return;
      accepted.delete(msg.data);
      const from = 'from' in msg ? String(msg.from) : '';
      this.#events.onBlock({ payload: outcome.payload, parentBeaconBlockRoot: outcome.parentBeaconBlockRoot, from });
    });
  }

  /**
   * Queues a signed block message (signature ‖ payload, not compressed) for its version's topic. Returns at once;
   * the queue drains in the background.
   */
  publish(version: BlockVersion, message: Uint8Array): void {
    if (this.#queue.length >= PUBLISH_QUEUE) {
      this.#queue.shift();
      this.stats.publishDropped++;
      this.#log.warn('Gossip publish queue full, dropped the oldest block');
    }
    this.#queue.push({ version, message });
    if (!this.#draining) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
        const topic = blocksTopic(this.#cfg.l2ChainId, next.version);
        try {
          await this.#node.services.pubsub.publish(topic, snappyCompress(next.message));
          this.stats.published++;
        } catch (err) {
          this.#log.warn('Failed to publish a block', { topic, err: (err as Error).message });
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  /** The peer's gossipsub score (0 with --p2p.scoring=none). */
  gossipsubScore(peer: string): number {
    return (this.#node.services.pubsub as unknown as { getScore(p: string): number }).getScore(peer);
  }

  /**
   * The peer's gossipsub score parts on the blocks topics (summed over the four versions; time in mesh in seconds,
   * the longest), as op-node's PeerScores snapshot shows them; undefined when gossipsub keeps no stats for it.
   */
  gossipsubParts(peer: string): GossipsubParts | undefined {
    const score = (this.#node.services.pubsub as unknown as { score?: { peerStats?: Map<string, PeerStatsLike> } })
      .score;
    const stats = score?.peerStats?.get(peer);
    if (stats === undefined) return undefined;
    const parts: GossipsubParts = {
      timeInMesh: 0,
      firstMessageDeliveries: 0,
      meshMessageDeliveries: 0,
      invalidMessageDeliveries: 0,
      behavioralPenalty: stats.behaviourPenalty,
    };
    for (const t of this.topics()) {
      const ts = stats.topics[t];
      if (ts === undefined) continue;
      parts.timeInMesh = Math.max(parts.timeInMesh, ts.inMesh ? ts.meshTime / 1000 : 0);
      parts.firstMessageDeliveries += ts.firstMessageDeliveries;
      parts.meshMessageDeliveries += ts.meshMessageDeliveries;
      parts.invalidMessageDeliveries += ts.invalidMessageDeliveries;
    }
    return parts;
  }

  /** Peers subscribed to any blocks topic. */
  topicPeers(): string[] {
    const out = new Set<string>();
    for (const t of this.topics()) for (const p of this.#node.services.pubsub.getSubscribers(t)) out.add(p.toString());
    return [...out];
  }
}
