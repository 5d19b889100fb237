// gossipsub as op-node configures it (gossip.go BuildGlobalGossipParams and NewGossipSub): mesh D 8 / Dlo 6 /
// Dhi 12 / Dlazy 6, 500 ms heartbeat, fanout TTL 24 s, history 12 windows (gossip 3), seen TTL 130 heartbeats,
// StrictNoSign, no flood publish, no floodsub fallback, no peer exchange, 10 MiB messages.
//
// @libp2p/gossipsub 17 caps frames at 4 MiB both ways: the inbound limit is an option, but the outbound stream
// length-prefixes with it-length-prefixed's 4 MiB default and drops bigger messages. allowLargeMessages() wraps
// each outbound stream's push with a plain uvarint length prefix, so blocks up to op-node's 10 MiB go out.
import type { gossipsub } from '@libp2p/gossipsub';
import { gossipMessageId, MAX_GOSSIP_SIZE, tryUncompressGossip } from './topics.js';

type GossipsubInit = NonNullable<Parameters<typeof gossipsub>[0]>;

/** A gossipsub frame holds one message plus protobuf framing and control data. */
export const MAX_GOSSIP_FRAME = MAX_GOSSIP_SIZE + 64 * 1024;

/** The gossipsub options; `scoring` from scoreParams.ts (--p2p.scoring), gossipsub's defaults without it. */
export function gossipOptions(scoring?: Pick<GossipsubInit, 'scoreParams' | 'scoreThresholds'>): GossipsubInit {
  return {
    ...scoring,
    globalSignaturePolicy: 'StrictNoSign',
    fallbackToFloodsub: false,
    floodPublish: false,
    doPX: false,
    allowPublishToZeroTopicPeers: true,
    D: 8,
    Dlo: 6,
    Dhi: 12,
    Dlazy: 6,
    heartbeatInterval: 500,
    fanoutTTL: 24_000,
    mcacheLength: 12,
    mcacheGossip: 3,
    seenTTL: 130 * 500,
    maxInboundDataLength: MAX_GOSSIP_FRAME,
    maxOutboundBufferSize: 4 * MAX_GOSSIP_FRAME,
    asyncValidation: false,
    msgIdFn: (m) => gossipMessageId(m.topic, m.data, tryUncompressGossip(m.data)),
  };
}

function uvarint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Uint8Array.from(out);
}

interface OutboundStreamLike {
  push(data: Uint8Array): void;
  pushPrefixed(data: Uint8Array): void;
}

/** Lets `pubsub` send frames up to MAX_GOSSIP_FRAME (see the module comment). */
export function allowLargeMessages(pubsub: object): void {
  const streams = (pubsub as { streamsOutbound?: Map<string, OutboundStreamLike> }).streamsOutbound;
  if (!(streams instanceof Map)) throw new Error('gossipsub internals changed: no streamsOutbound map to patch');
  const set = streams.set.bind(streams);
  streams.set = (id: string, stream: OutboundStreamLike) => {
    stream.push = (data: Uint8Array) => {
      if (data.length > MAX_GOSSIP_FRAME) throw new Error(`gossip frame of ${data.length} bytes is too large`);
      stream.pushPrefixed(Buffer.concat([uvarint(data.length), data]));
    };
    return set(id, stream);
  };
}
