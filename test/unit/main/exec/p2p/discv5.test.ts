// The pieces under tern-exec's discv5: the `eth` ENR entry as geth writes it ([[fork hash, fork next]], a nested
// list, not a byte string), the fork-id filter on found records, and the UDP demultiplexer that tells discv4
// packets (keccak-prefixed) from discv5 packets (masked) on the shared discovery port.
import { randomBytes } from 'node:crypto';
import { createRandomPacket, encodePacket } from '@chainsafe/discv5/packet';
import { ENR, SignableENR } from '@chainsafe/enr';
import { encode as encodeDiscv4 } from '@ethereumjs/devp2p';
import { decode as rlpDecode } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { ethEntry, forkIdOfRecord, isEthRecordOf, peerInfoOfRecord } from '../../../../../src/main/exec/p2p/discv5.js';
import { loadNodeKey } from '../../../../../src/main/exec/p2p/nodeKey.js';
import { isDiscv4Packet } from '../../../../../src/main/exec/p2p/udpMux.js';

const fork = { hash: Uint8Array.of(0xfc, 0x64, 0xec, 0x04), next: 1_150_000n };

describe('eth ENR entry', () => {
  it('is the nested list [[hash, next]] inside the signed record, and reads back', () => {
    const key = loadNodeKey({});
    const enr = SignableENR.createV4(key.privateKey, { eth: ethEntry(fork) });
    enr.ip = '127.0.0.1';
    enr.tcp = 30303;
    const text = enr.encodeTxt();
    const raw = rlpDecode(Uint8Array.from(Buffer.from(text.slice(4), 'base64url'))) as unknown[];
    const at = raw.findIndex((v) => v instanceof Uint8Array && Buffer.from(v).toString() === 'eth');
    // geth: rlp.Encode(enrEntry{ForkID{Hash, Next}}) → list(list(4 bytes, uint)).
    expect(raw[at + 1]).toEqual([[fork.hash, Uint8Array.of(0x11, 0x8c, 0x30)]]);
    const back = ENR.decodeTxt(text);
    expect(forkIdOfRecord(back)).toEqual(fork);
    expect(isEthRecordOf(back, (id) => (id.next === fork.next ? 'ok' : 'remote-stale'))).toBe(true);
    expect(isEthRecordOf(back, () => 'local-incompatible-or-stale')).toBe(false);
    expect(peerInfoOfRecord(back)).toEqual({ id: key.id, address: '127.0.0.1', tcpPort: 30303, udpPort: null });
  });

  it('a record without an eth entry, or with a malformed one, is not an eth node', () => {
    const key = loadNodeKey({});
    const plain = ENR.decodeTxt(SignableENR.createV4(key.privateKey).encodeTxt());
    expect(forkIdOfRecord(plain)).toBeUndefined();
    const bytes = ENR.decodeTxt(SignableENR.createV4(key.privateKey, { eth: fork.hash }).encodeTxt());
    expect(forkIdOfRecord(bytes)).toBeUndefined();
    const longHash = SignableENR.createV4(key.privateKey, { eth: ethEntry({ hash: new Uint8Array(5), next: 0n }) });
    expect(forkIdOfRecord(ENR.decodeTxt(longHash.encodeTxt()))).toBeUndefined();
  });
});

describe('discovery UDP demultiplexer', () => {
  it('routes discv4 packets to discv4 and discv5 packets to discv5', () => {
    const key = loadNodeKey({});
    const ping = encodeDiscv4(
      'ping',
      {
        version: 4,
        from: { address: '127.0.0.1', udpPort: 30303, tcpPort: 30303 },
        to: { address: '127.0.0.1', udpPort: 30304, tcpPort: 30304 },
      },
      key.privateKey,
    );
    expect(isDiscv4Packet(ping)).toBe(true);
    const flipped = Uint8Array.from(ping);
    flipped[100] = (flipped[100] as number) ^ 1;
    expect(isDiscv4Packet(flipped)).toBe(false);
    const srcId = randomBytes(32).toString('hex');
    const destId = randomBytes(32).toString('hex');
    for (let i = 0; i < 20; i++) expect(isDiscv4Packet(encodePacket(destId, createRandomPacket(srcId)))).toBe(false);
    expect(isDiscv4Packet(new Uint8Array(10))).toBe(false);
  });
});
