// The `opstack` node-record entry and bootnode parsing, against records op-node's default bootnode list carries.
import { ENR } from '@chainsafe/enr';
import { describe, expect, it } from 'vitest';
import { OP_NODE_DEFAULT_BOOTNODES } from '../../../../../src/main/node/p2p/defaultBootnodes.js';
import {
  decodeOpStackEntry,
  encodeOpStackEntry,
  isOpStackRecordOf,
  parseBootnode,
  peerIdOfRecord,
  recordOfEnode,
  tcpAddrOfRecord,
} from '../../../../../src/main/node/p2p/nodeRecord.js';

// A Base bootnode of op-node's DefaultBootnodes: its record holds `opstack` = 0x83 0x85 0x42 0x00 (RLP string of
// uvarint(8453) ‖ uvarint(0)), IP 3.231.138.188, TCP and UDP 9222.
const BASE_BOOTNODE = OP_NODE_DEFAULT_BOOTNODES[2] as string;

describe('opstack entry', () => {
  it('encodes uvarint(chainId) ‖ uvarint(0)', () => {
    expect(Buffer.from(encodeOpStackEntry(8453n)).toString('hex')).toBe('854200');
    expect(Buffer.from(encodeOpStackEntry(10n)).toString('hex')).toBe('0a00');
    expect(Buffer.from(encodeOpStackEntry(11155420n)).toString('hex')).toBe('dcefa80500');
    expect(decodeOpStackEntry(Uint8Array.from([0x85, 0x42, 0x00]))).toEqual({ chainId: 8453n, version: 0n });
    expect(decodeOpStackEntry(Uint8Array.from([0x85]))).toBeUndefined();
    expect(decodeOpStackEntry(Uint8Array.from([0x0a]))).toBeUndefined();
  });

  it('reads a real op-node record and filters on chain and version', async () => {
    const enr = ENR.decodeTxt(BASE_BOOTNODE);
    expect(Buffer.from(enr.kvs.get('opstack') as Uint8Array).toString('hex')).toBe('854200');
    // The encoded record holds the entry as an RLP byte string: 0x83 ‖ 854200.
    expect(Buffer.from(enr.encode()).toString('hex')).toContain(`${Buffer.from('opstack').toString('hex')}83854200`);
    expect(isOpStackRecordOf(enr, 8453n)).toBe(true);
    expect(isOpStackRecordOf(enr, 10n)).toBe(false);
    expect(tcpAddrOfRecord(enr)?.toString()).toBe('/ip4/3.231.138.188/tcp/9222');
    expect(peerIdOfRecord(enr).toString()).toMatch(/^16Uiu2/);
    expect((await parseBootnode(BASE_BOOTNODE)).nodeId).toBe(enr.nodeId);
  });

  it('turns an enode URL into an unsigned record with the same node id', async () => {
    const url =
      'enode://869d07b5932f17e8490990f75a3f94195e9504ddb6b85f7189e5a9c0a8fff8b00aecf6f3ac450ecba6cdabdb5858788a94bde2b613e0f2d82e9b395355f76d1a@34.65.67.101:30305';
    const enr = await recordOfEnode(url);
    expect(enr.ip).toBe('34.65.67.101');
    expect(enr.udp).toBe(30305);
    expect(enr.tcp).toBe(30305);
    // discv5 node id = keccak256(uncompressed key without the 04 prefix).
    const { keccak_256 } = await import('@noble/hashes/sha3.js');
    const key = Buffer.from(url.slice(8, 8 + 128), 'hex');
    expect(enr.nodeId).toBe(Buffer.from(keccak_256(key)).toString('hex'));
    const disc = await recordOfEnode(`${url.slice(0, url.lastIndexOf(':'))}:0?discport=30301`);
    expect(disc.udp).toBe(30301);
    expect(disc.tcp).toBeUndefined();
    const named = await recordOfEnode(url.replace('34.65.67.101', 'bootnode.example'), async () => '1.2.3.4');
    expect(named.ip).toBe('1.2.3.4');
    await expect(parseBootnode('enode://abc@1.2.3.4:1')).rejects.toThrow(/not an enode URL/);
    await expect(parseBootnode('enr:-garbage')).rejects.toThrow(/not a valid node record/);
    await expect(parseBootnode('http://x')).rejects.toThrow(/neither/);
  });
});
