// Gossip topic names and message ids (rollup-node-p2p.md, "Gossip topics" and "Message ID"): one blocks topic per
// payload version, and a message id that hashes the snappy-decoded data when it decodes (domain 0x01000000) and
// the raw data otherwise (0x00000000), with the topic (length-prefixed, u64 little-endian) hashed in between, as
// op-node computes it. The id is the first 20 bytes of the sha256.
import { createHash } from 'node:crypto';
import { snappyDecodedLength, snappyUncompress } from '../../common/snappy.js';
import type { BlockVersion } from '../signer/gossipPayload.js';

/** Largest decoded gossip message (op-node's maxGossipSize, 10 MiB). */
export const MAX_GOSSIP_SIZE = 10 * (1 << 20);
/** Smallest: a 65-byte signature and at least one byte of payload. */
export const MIN_GOSSIP_SIZE = 66;

export const BLOCK_VERSIONS: readonly BlockVersion[] = [1, 2, 3, 4];

/** `/optimism/<chainId>/<N>/blocks`, N = 0 for v1 … 3 for v4. */
export function blocksTopic(l2ChainId: bigint, version: BlockVersion): string {
  return `/optimism/${l2ChainId.toString()}/${version - 1}/blocks`;
}

/** The block version a topic of this chain carries, or undefined for any other topic. */
export function versionOfTopic(l2ChainId: bigint, topic: string): BlockVersion | undefined {
  return BLOCK_VERSIONS.find((v) => blocksTopic(l2ChainId, v) === topic);
}

const DOMAIN_VALID_SNAPPY = Uint8Array.from([1, 0, 0, 0]);
const DOMAIN_INVALID_SNAPPY = Uint8Array.from([0, 0, 0, 0]);

/** Decoded gossip data, or undefined when it is not snappy within the size limit. */
export function tryUncompressGossip(data: Uint8Array): Uint8Array | undefined {
  const len = snappyDecodedLength(data);
  if (len === undefined || len > MAX_GOSSIP_SIZE) return undefined;
  try {
    return snappyUncompress(data, MAX_GOSSIP_SIZE);
  } catch {
    return undefined;
  }
}

/** The 20-byte gossipsub message id of `data` on `topic`; `decoded` skips a second decompression. */
export function gossipMessageId(topic: string, data: Uint8Array, decoded = tryUncompressGossip(data)): Uint8Array {
  const h = createHash('sha256');
  h.update(decoded === undefined ? DOMAIN_INVALID_SNAPPY : DOMAIN_VALID_SNAPPY);
  const topicBytes = Buffer.from(topic, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(topicBytes.length));
  h.update(len);
  h.update(topicBytes);
  h.update(decoded ?? data);
  return new Uint8Array(h.digest().subarray(0, 20));
}
