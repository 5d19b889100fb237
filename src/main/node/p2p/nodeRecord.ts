// Node records (ENRs) as op-node reads and writes them (p2p/discovery.go): the `opstack` entry that tags a record
// with its L2 chain, the filter that keeps only records of this chain, the libp2p peer and TCP address a record
// points at, and the bootnode strings op-node accepts (`enr:` records and `enode://` URLs).
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { ENR } from '@chainsafe/enr';
import { publicKeyFromRaw } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPublicKey } from '@libp2p/peer-id';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { UsageError } from '../../common/errors.js';

/** The ENR key op-node puts its chain tag under. */
export const OPSTACK_ENR_KEY = 'opstack';

function putUvarint(out: number[], value: bigint): void {
  let v = value;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** Reads one uvarint at `pos` (Go's binary.ReadUvarint: at most 10 bytes, no overflow past 64 bits). */
function readUvarint(bytes: Uint8Array, pos: number): { value: bigint; next: number } | undefined {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const b = bytes[pos + i];
    if (b === undefined) return undefined;
    value |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) {
      if (i === 9 && b > 1) return undefined;
      return { value, next: pos + i + 1 };
    }
  }
  return undefined;
}

/**
 * The value of the `opstack` entry: `uvarint(chainId) ‖ uvarint(version)`. The record's RLP list holds it as one
 * byte string, which is what op-node's EncodeRLP writes.
 */
export function encodeOpStackEntry(chainId: bigint, version = 0n): Uint8Array {
  const out: number[] = [];
  putUvarint(out, chainId);
  putUvarint(out, version);
  return Uint8Array.from(out);
}

/** The chain id and version of an `opstack` entry, or undefined when it does not parse (extra bytes are allowed). */
export function decodeOpStackEntry(value: Uint8Array): { chainId: bigint; version: bigint } | undefined {
  const chain = readUvarint(value, 0);
  if (chain === undefined) return undefined;
  const version = readUvarint(value, chain.next);
  if (version === undefined) return undefined;
  return { chainId: chain.value, version: version.value };
}

/** op-node's FilterEnodes: the record has an `opstack` entry for this chain with version 0. */
export function isOpStackRecordOf(enr: ENR, chainId: bigint): boolean {
  const value = enr.kvs.get(OPSTACK_ENR_KEY);
  if (value === undefined) return false;
  const dat = decodeOpStackEntry(value);
  return dat !== undefined && dat.chainId === chainId && dat.version === 0n;
}

/** The libp2p peer id of a record's secp256k1 key (the same id the peer's libp2p host has). */
export function peerIdOfRecord(enr: ENR): PeerId {
  return peerIdFromPublicKey(publicKeyFromRaw(enr.publicKey));
}

/** The `/ip4|ip6/<ip>/tcp/<port>` the record announces for libp2p, if it has an IP and a TCP port. */
export function tcpAddrOfRecord(enr: ENR): Multiaddr | undefined {
  if (enr.ip !== undefined && enr.tcp !== undefined && enr.tcp !== 0) return multiaddr(`/ip4/${enr.ip}/tcp/${enr.tcp}`);
  if (enr.ip6 !== undefined && enr.tcp6 !== undefined && enr.tcp6 !== 0) {
    return multiaddr(`/ip6/${enr.ip6}/tcp/${enr.tcp6}`);
  }
  return undefined;
}

const ENODE = /^enode:\/\/([0-9a-fA-F]{128})@([^:/?]+)(?::(\d+))?(?:\?discport=(\d+))?$/;

function portBytes(port: number): Uint8Array {
  return Uint8Array.from([port >> 8, port & 0xff]);
}

/**
 * A record for an `enode://<pubkey>@<ip>:<tcp>[?discport=<udp>]` URL. The URL carries no signature, so the record
 * has sequence number 0 and an empty signature, as geth's enode.NewV4 builds it: discv5 only needs the key and
 * the UDP endpoint to reach the node, and the node's own signed record replaces this one on first contact.
 * A host name is resolved to its IPv4 address first.
 */
export async function recordOfEnode(
  url: string,
  resolve: (host: string) => Promise<string> = resolveIPv4,
): Promise<ENR> {
  const m = ENODE.exec(url);
  if (m === null) throw new UsageError(`"${url}" is not an enode URL (enode://<key>@<host>:<port>[?discport=<port>])`);
  const [, keyHex, host, tcpText, discText] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const ip = isIPv4(host) ? host : await resolve(host);
  const tcp = Number(tcpText ?? '0');
  const udp = discText === undefined ? tcp : Number(discText);
  const octets = ip.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o > 255) || tcp > 65535 || udp > 65535) {
    throw new UsageError(`"${url}" has an invalid IP or port`);
  }
  let compressed: Uint8Array;
  try {
    compressed = secp256k1.Point.fromHex(`04${keyHex}`).toBytes(true);
  } catch {
    throw new UsageError(`"${url}" does not hold a valid secp256k1 public key`);
  }
  const kvs = new Map<string, Uint8Array>([
    ['id', new TextEncoder().encode('v4')],
    ['secp256k1', compressed],
    ['ip', Uint8Array.from(octets)],
    ['udp', portBytes(udp)],
  ]);
  if (tcp !== 0) kvs.set('tcp', portBytes(tcp));
  return new ENR(kvs, 0n, new Uint8Array(0));
}

async function resolveIPv4(host: string): Promise<string> {
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch (err) {
    throw new UsageError(`cannot resolve "${host}": ${(err as Error).message}`);
  }
}

/** A bootnode as op-node accepts it: an `enr:` record (signature checked) or an `enode://` URL. */
export async function parseBootnode(text: string): Promise<ENR> {
  if (text.startsWith('enode://')) return recordOfEnode(text);
  if (!text.startsWith('enr:'))
    throw new UsageError(`--p2p.bootnodes: "${text}" is neither an enr: record nor an enode:// URL`);
  try {
    return ENR.decodeTxt(text);
  } catch (err) {
    throw new UsageError(`--p2p.bootnodes: "${text}" is not a valid node record: ${(err as Error).message}`);
  }
}
