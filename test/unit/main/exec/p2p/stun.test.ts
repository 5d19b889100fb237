// --nat stun: the Binding response parser against RFC 5769's sample IPv4 response, and a query against a tiny
// STUN responder on 127.0.0.1 that answers with the address it saw (as a real server does).
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { natPlan } from '../../../../../src/main/exec/p2p/options.js';
import { bindingRequest, parseBindingResponse, stunMappedAddress } from '../../../../../src/main/exec/p2p/stun.js';

// RFC 5769 section 2.2, "Sample IPv4 Response": SOFTWARE, XOR-MAPPED-ADDRESS 192.0.2.1:32853, MESSAGE-INTEGRITY,
// FINGERPRINT.
const RFC5769_TXID = Buffer.from('b7e7a701bc34d686fa87dfae', 'hex');
const RFC5769_RESPONSE = Buffer.from(
  [
    '0101003c2112a442b7e7a701bc34d686fa87dfae', // header, transaction id
    '8022000b7465737420766563746f7220', // SOFTWARE "test vector "
    '002000080001a147e112a643', // XOR-MAPPED-ADDRESS
    '000800142b91f599fd9e90c38c7489f92af9ba53f06be7d7', // MESSAGE-INTEGRITY
    '80280004c07d4c96', // FINGERPRINT
  ].join(''),
  'hex',
);

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

/** A STUN server of one rule: a Binding request gets the sender's address as XOR-MAPPED-ADDRESS (or `reply`). */
async function responder(reply?: (req: Buffer) => Buffer | undefined): Promise<number> {
  const s = createSocket('udp4');
  sockets.push(s);
  s.on('message', (req, rinfo) => {
    if (req.readUInt16BE(0) !== 0x0001 || req.readUInt32BE(4) !== 0x2112a442) return;
    const custom = reply?.(req);
    if (custom !== undefined) {
      s.send(custom, rinfo.port, rinfo.address);
      return;
    }
    const res = Buffer.alloc(32);
    res.writeUInt16BE(0x0101, 0);
    res.writeUInt16BE(12, 2);
    req.copy(res, 4, 4, 20);
    res.writeUInt16BE(0x0020, 20);
    res.writeUInt16BE(8, 22);
    res.writeUInt16BE(0x0001, 24);
    res.writeUInt16BE(rinfo.port ^ 0x2112, 26);
    const ip = rinfo.address.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    res.writeUInt32BE((ip ^ 0x2112a442) >>> 0, 28);
    s.send(res, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  return s.address().port;
}

describe('STUN Binding', () => {
  it("reads RFC 5769's sample IPv4 response", () => {
    expect(parseBindingResponse(RFC5769_RESPONSE, RFC5769_TXID)).toEqual({ ip: '192.0.2.1', port: 32853 });
    expect(() => parseBindingResponse(RFC5769_RESPONSE, Buffer.alloc(12))).toThrow('another transaction');
    expect(() => parseBindingResponse(RFC5769_RESPONSE.subarray(0, 40), RFC5769_TXID)).toThrow('length');
    expect(() => parseBindingResponse(Buffer.alloc(5), RFC5769_TXID)).toThrow('header');
  });

  it('writes a Binding request header', () => {
    expect(Buffer.from(bindingRequest(RFC5769_TXID)).toString('hex')).toBe(
      `000100002112a442${RFC5769_TXID.toString('hex')}`,
    );
  });

  it('learns the mapped address from a responder on 127.0.0.1', async () => {
    const port = await responder();
    const mapped = await stunMappedAddress('127.0.0.1', port);
    expect(mapped.ip).toBe('127.0.0.1');
    expect(mapped.port).toBeGreaterThan(0);
  });

  it('fails clearly on an error response and on silence', async () => {
    const port = await responder((req) => {
      const res = Buffer.alloc(36);
      res.writeUInt16BE(0x0111, 0);
      res.writeUInt16BE(16, 2);
      req.copy(res, 4, 4, 20);
      res.writeUInt16BE(0x0009, 20);
      res.writeUInt16BE(12, 22);
      res.writeUInt8(4, 26);
      res.writeUInt8(20, 27);
      res.write('Unknown ', 28);
      return res;
    });
    await expect(stunMappedAddress('127.0.0.1', port)).rejects.toThrow('420 Unknown');
    const silent = await responder(() => Buffer.alloc(0));
    await expect(stunMappedAddress('127.0.0.1', silent, 700)).rejects.toThrow('no STUN answer');
  });

  it('--nat stun:<IP:PORT> names the server', () => {
    expect(natPlan('stun:203.0.113.7:3478')).toEqual({
      externalIp: undefined,
      stun: { host: '203.0.113.7', port: 3478 },
      gateway: undefined,
      unsupported: undefined,
    });
    expect(natPlan('extip:1.2.3.4').externalIp).toBe('1.2.3.4');
    expect(natPlan('bogus').unsupported).toBe('bogus');
  });
});
