// The node's EIP-778 record (v4 identity scheme): seq, id "v4", ip, secp256k1 (compressed public key), tcp, udp
// and the eth entry [[fork hash, fork next]] (EIP-2124's ENR field), keys sorted, signed over keccak256 of the
// content, and its text form "enr:" + base64url without padding.
import { isIP } from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 } from '../../native/keccak.js';
import { type RlpInput, rlpEncode } from '../../primitives/rlp.js';
import type { ForkId } from './forkId.js';

export interface EnrFields {
  seq: bigint;
  ip: string;
  tcp?: number | undefined;
  udp?: number | undefined;
  forkId?: ForkId | undefined;
}

function ipBytes(ip: string): Uint8Array | undefined {
  if (isIP(ip) !== 4) return undefined;
  return Uint8Array.from(ip.split('.').map(Number));
}

export function encodeEnr(privateKey: Uint8Array, f: EnrFields): string {
  const pairs: Array<[string, RlpInput]> = [
    ['id', 'v4'],
    ['secp256k1', secp256k1.getPublicKey(privateKey, true)],
  ];
  if (f.tcp !== undefined) pairs.push(['tcp', f.tcp]);
  if (f.udp !== undefined) pairs.push(['udp', f.udp]);
  const ip = ipBytes(f.ip);
  if (ip !== undefined) pairs.push(['ip', ip]);
  if (f.forkId !== undefined) pairs.push(['eth', [[f.forkId.hash, f.forkId.next]]]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const content: RlpInput[] = [f.seq];
  for (const [k, v] of pairs) content.push(k, v);
  const sig = secp256k1.sign(keccak256(rlpEncode(content)), privateKey, { prehash: false, format: 'compact' });
  const record = rlpEncode([sig, ...content]);
  return `enr:${Buffer.from(record).toString('base64url')}`;
}
