// --nat stun:<IP:PORT>: the node's public IP learned with one STUN Binding request (RFC 5389) to the given server,
// as geth's nat.STUN does. Only the IP is used: the mapped port belongs to the short-lived query socket.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';

const MAGIC_COOKIE = 0x2112a442;
const BINDING_REQUEST = 0x0001;
const BINDING_SUCCESS = 0x0101;
const BINDING_ERROR = 0x0111;
const ATTR_MAPPED_ADDRESS = 0x0001;
const ATTR_XOR_MAPPED_ADDRESS = 0x0020;
const ATTR_ERROR_CODE = 0x0009;

export interface MappedAddress {
  ip: string;
  port: number;
}

/** A Binding request: type, length 0, the magic cookie and the 12-byte transaction id. */
export function bindingRequest(transactionId: Uint8Array): Uint8Array {
  const out = Buffer.alloc(20);
  out.writeUInt16BE(BINDING_REQUEST, 0);
  out.writeUInt16BE(0, 2);
  out.writeUInt32BE(MAGIC_COOKIE, 4);
  out.set(transactionId, 8);
  return out;
}

/**
 * The mapped address of a Binding success response for `transactionId` (XOR-MAPPED-ADDRESS, else the classic
 * MAPPED-ADDRESS); throws on anything else: another transaction, an error response, a malformed message.
 */
export function parseBindingResponse(msg: Uint8Array, transactionId: Uint8Array): MappedAddress {
  const b = Buffer.from(msg.buffer, msg.byteOffset, msg.byteLength);
  if (b.length < 20) throw new Error('STUN response shorter than its header');
  const type = b.readUInt16BE(0);
  const length = b.readUInt16BE(2);
  if (b.readUInt32BE(4) !== MAGIC_COOKIE) throw new Error('STUN response without the magic cookie');
  if (!b.subarray(8, 20).equals(transactionId)) throw new Error('STUN response for another transaction');
  if (length % 4 !== 0 || 20 + length > b.length) throw new Error('STUN response length does not match');
  let mapped: MappedAddress | undefined;
  let xorMapped: MappedAddress | undefined;
  let errorText: string | undefined;
  for (let at = 20; at + 4 <= 20 + length; ) {
    const attr = b.readUInt16BE(at);
    const len = b.readUInt16BE(at + 2);
    const value = b.subarray(at + 4, at + 4 + len);
    if (value.length !== len) throw new Error('STUN attribute past the end of the message');
    if (attr === ATTR_XOR_MAPPED_ADDRESS) xorMapped = readAddress(value, true);
    else if (attr === ATTR_MAPPED_ADDRESS) mapped = readAddress(value, false);
    else if (attr === ATTR_ERROR_CODE && len >= 4) {
      errorText = `${(value[2] as number) * 100 + (value[3] as number)} ${value.subarray(4).toString('utf8')}`;
    }
    at += 4 + Math.ceil(len / 4) * 4;
  }
  if (type === BINDING_ERROR) throw new Error(`STUN server answered an error: ${errorText ?? 'no error code'}`);
  if (type !== BINDING_SUCCESS) throw new Error(`not a STUN Binding response (type 0x${type.toString(16)})`);
  const address = xorMapped ?? mapped;
  if (address === undefined) throw new Error('STUN response without a mapped address');
  return address;
}

function readAddress(value: Buffer, xor: boolean): MappedAddress | undefined {
  if (value.length < 8 || value[1] !== 0x01) return undefined; // IPv4 only: the node advertises an IPv4 ENR
  const port = value.readUInt16BE(2) ^ (xor ? MAGIC_COOKIE >>> 16 : 0);
  const ip = value.readUInt32BE(4) ^ (xor ? MAGIC_COOKIE : 0);
  return { ip: [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff].join('.'), port };
}

/** Asks `server` for this host's public address; retransmits as RFC 5389 suggests (500 ms, doubling). */
export function stunMappedAddress(host: string, port: number, timeoutMs = 3_000): Promise<MappedAddress> {
  const transactionId = randomBytes(12);
  const request = bindingRequest(transactionId);
  const socket = createSocket('udp4');
  return new Promise<MappedAddress>((resolve, reject) => {
    let wait = 500;
    let retry: NodeJS.Timeout | undefined;
    const send = () => {
      socket.send(request, port, host);
      retry = setTimeout(send, wait);
      wait *= 2;
    };
    const done = setTimeout(
      () => finish(new Error(`no STUN answer from ${host}:${port} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = (err: Error | undefined, result?: MappedAddress) => {
      clearTimeout(done);
      clearTimeout(retry);
      socket.close();
      if (err !== undefined) reject(err);
      else resolve(result as MappedAddress);
    };
    socket.on('error', (err) => finish(err));
    socket.on('message', (msg) => {
      try {
        finish(undefined, parseBindingResponse(msg, transactionId));
      } catch (err) {
        // Another transaction's or a malformed datagram: keep waiting; an error response ends the query.
        if ((err as Error).message.startsWith('STUN server answered')) finish(err as Error);
      }
    });
    socket.bind(0, send);
  });
}
