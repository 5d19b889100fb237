// Ledger's HID framing and the Ethereum app's get-address exchange, recorded byte for byte: the request reports
// for m/44'/60'/0'/0/0 and a reply carrying the public key of private key 1, whose address is the well-known
// 0x7e5f4552091a69125d5dfcb7b8c2659029395bdf (the parsed address is also checked against keccak of the key).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import {
  encodeDerivationPath,
  type HidChannel,
  LEDGER_REPORT_SIZE,
  ledgerFrames,
  ledgerGetAddress,
  ledgerReadReply,
  parseAddressReply,
} from '../../../../../../src/main/exec/accounts/hardware/ledger.js';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ADDRESS_OF_KEY_1 = '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf';

function key1(): Uint8Array {
  const sk = new Uint8Array(32);
  sk[31] = 1;
  return secp256k1.getPublicKey(sk, false);
}

/** The device side: reports of a reply payload followed by status `sw`. */
function replyFrames(payload: Uint8Array, sw = 0x9000): Uint8Array[] {
  const reply = Buffer.concat([payload, Buffer.from([sw >> 8, sw & 0xff])]);
  const frames: Uint8Array[] = [];
  let at = 0;
  for (let seq = 0; at < reply.length; seq++) {
    const f = new Uint8Array(LEDGER_REPORT_SIZE);
    f.set([0x01, 0x01, 0x05, seq >> 8, seq & 0xff]);
    let off = 5;
    if (seq === 0) {
      f.set([reply.length >> 8, reply.length & 0xff], 5);
      off = 7;
    }
    const piece = reply.subarray(at, at + LEDGER_REPORT_SIZE - off);
    f.set(piece, off);
    at += piece.length;
    frames.push(f);
  }
  return frames;
}

function addressReply(): Uint8Array {
  const pk = key1();
  return Buffer.concat([
    Buffer.from([pk.length]),
    pk,
    Buffer.from([40]),
    Buffer.from(ADDRESS_OF_KEY_1.slice(2), 'latin1'),
  ]);
}

describe('Ledger exchange', () => {
  it("frames the get-address APDU for m/44'/60'/0'/0/0 as one report", () => {
    const frames = ledgerFrames(0x02, 0x00, 0x00, encodeDerivationPath([0x8000002c, 0x8000003c, 0x80000000, 0, 0]));
    expect(frames).toHaveLength(1);
    expect(hex(frames[0] as Uint8Array)).toBe(
      `0101050000001ae002000015058000002c8000003c800000000000000000000000${'00'.repeat(64 - 33)}`,
    );
  });

  it('splits long APDUs into numbered reports', () => {
    const frames = ledgerFrames(0x04, 0x00, 0x00, new Uint8Array(200).fill(0xab));
    expect(frames).toHaveLength(4); // 2 + 5 + 200 = 207 bytes: 59 + 59 + 59 + 30
    expect(frames.map((f) => hex(f.subarray(0, 5)))).toEqual(['0101050000', '0101050001', '0101050002', '0101050003']);
    expect(hex((frames[0] as Uint8Array).subarray(5, 12))).toBe('00cde0040000c8');
  });

  it('reads the address reply over two reports and checks it against the public key', async () => {
    const frames = replyFrames(addressReply());
    expect(frames).toHaveLength(2);
    const sent: Uint8Array[] = [];
    const dev: HidChannel = {
      write: async (r) => {
        sent.push(r);
      },
      read: async () => frames.shift() as Uint8Array,
    };
    expect(await ledgerGetAddress(dev)).toBe(ADDRESS_OF_KEY_1);
    expect(sent).toHaveLength(1);
    const { publicKey, address } = parseAddressReply(addressReply());
    expect(`0x${hex(keccak256(publicKey.subarray(1)).subarray(12))}`).toBe(address);
  });

  it('refuses a denied request, a foreign channel and reports out of order', async () => {
    const read = (frames: Uint8Array[]) => ledgerReadReply(async () => frames.shift() as Uint8Array);
    await expect(read(replyFrames(new Uint8Array(0), 0x6985))).rejects.toThrow(/status 0x6985/);
    const foreign = replyFrames(addressReply());
    (foreign[0] as Uint8Array)[0] = 0x02;
    await expect(read(foreign)).rejects.toThrow(/invalid reply header/);
    const swapped = replyFrames(addressReply());
    swapped.reverse();
    await expect(read(swapped)).rejects.toThrow(/out of sequence/);
    expect(() => parseAddressReply(Uint8Array.from([65, 1, 2]))).toThrow(/too short/);
  });
});
