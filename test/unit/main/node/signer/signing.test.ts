// The block-signing scheme of rollup-node-p2p.md: the signing hash built by hand from the spec text with an
// independent keccak (@noble/hashes), a fixed vector, signatures cross-checked byte for byte against
// @noble/curves (both use RFC 6979 nonces), and the SSZ gossip payload layout.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import type { ExecutionPayload } from '../../../../../src/main/node/engine/interface.js';
import { blockVersion, encodePayloadSsz, gossipPayload } from '../../../../../src/main/node/signer/gossipPayload.js';
import { LocalSigner, parsePrivateKey } from '../../../../../src/main/node/signer/local.js';
import { signGossipBlock } from '../../../../../src/main/node/signer/setup.js';
import {
  blockSigningHash,
  payloadHash,
  recoverSigner,
  SIGNING_DOMAIN_BLOCKS_V1,
  signingHash,
} from '../../../../../src/main/node/signer/signingHash.js';
import { parseRollupConfig } from '../../../../../src/main/primitives/rollup/config.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
// anvil's first dev key and its address.
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const KEY_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** keccak256(domain ‖ uint256_be(chainId) ‖ keccak256(payload)), written out from the spec text. */
function specSigningHash(chainId: bigint, payload: Uint8Array, domain = new Uint8Array(32)): Uint8Array {
  const msg = new Uint8Array(96);
  msg.set(domain, 0);
  msg.set(bytes(chainId.toString(16).padStart(64, '0')), 32);
  msg.set(keccak_256(payload), 64);
  return keccak_256(msg);
}

describe('block signing hash', () => {
  const payload = new TextEncoder().encode('arbitraryData');

  it('is keccak256(domain ‖ chain_id ‖ keccak256(payload)) with a zero v1 domain', () => {
    expect(SIGNING_DOMAIN_BLOCKS_V1).toEqual(new Uint8Array(32));
    expect(hex(blockSigningHash(100n, payload))).toBe(hex(specSigningHash(100n, payload)));
    expect(hex(payloadHash(payload))).toBe(hex(keccak_256(payload)));
  });

  it('matches the fixed vector (chain 100, "arbitraryData")', () => {
    expect(hex(blockSigningHash(100n, payload))).toBe(VECTOR_HASH);
  });

  it('changes with the domain, the chain id and the message', () => {
    const base = hex(blockSigningHash(100n, payload));
    const d3 = new Uint8Array(32);
    d3[0] = 3;
    expect(hex(signingHash(d3, 100n, payloadHash(payload)))).not.toBe(base);
    expect(hex(blockSigningHash(101n, payload))).not.toBe(base);
    expect(hex(blockSigningHash(100n, new TextEncoder().encode('msg2')))).not.toBe(base);
  });

  it('rejects a chain id wider than 256 bits', () => {
    expect(() => blockSigningHash(1n << 256n, payload)).toThrow(/256 bits/);
    expect(() => blockSigningHash((1n << 256n) - 1n, payload)).not.toThrow();
  });
});

describe('LocalSigner', () => {
  it('derives the key address and signs exactly as @noble/curves does (r ‖ s ‖ y_parity)', async () => {
    const s = new LocalSigner(KEY);
    expect(s.address).toBe(KEY_ADDRESS);
    const ph = keccak_256(new TextEncoder().encode('block payload'));
    const sig = await s.signBlock(901n, ph);
    expect(sig.length).toBe(65);
    const h = specSigningHash(901n, new TextEncoder().encode('block payload'));
    const noble = secp256k1.sign(h, bytes(KEY), { prehash: false, format: 'recovered' });
    // noble's recovered format is recovery ‖ r ‖ s.
    expect(hex(sig.subarray(0, 64))).toBe(hex(noble.subarray(1, 65)));
    expect(sig[64]).toBe(noble[0]);
    expect(recoverSigner(h, sig)).toBe(KEY_ADDRESS);
    expect(hex(sig)).toBe(VECTOR_SIG);
  });

  it('refuses bad keys without echoing them, and signs nothing once closed', async () => {
    expect(() => parsePrivateKey('0x1234')).toThrow(/64 hex digits/);
    expect(() => parsePrivateKey(`0x${'00'.repeat(32)}`)).toThrow(/not a valid secp256k1 key/);
    const s = new LocalSigner(KEY);
    await s.close();
    await expect(s.signBlock(1n, new Uint8Array(32))).rejects.toThrow(/closed/);
  });

  it('recoverSigner rejects y_parity outside 0/1', () => {
    const sig = new Uint8Array(65);
    sig[64] = 27;
    expect(() => recoverSigner(new Uint8Array(32), sig)).toThrow(/y_parity/);
  });
});

function payload(extra: Partial<ExecutionPayload> = {}): ExecutionPayload {
  return {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256).fill(5),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 2000n,
    extraData: Uint8Array.of(0xee, 0xef),
    baseFeePerGas: (1n << 64n) + 5n,
    blockHash: new Uint8Array(32).fill(9),
    transactions: [Uint8Array.of(0x7e, 1, 2), Uint8Array.of(0x02, 3)],
    ...extra,
  };
}

describe('SSZ gossip payload', () => {
  const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint32(at, true);
  const u64 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getBigUint64(at, true);

  it('lays out a v1 payload: fixed part, extra data, transaction offsets then bodies', () => {
    const p = payload();
    const b = encodePayloadSsz(p, 1);
    const fixed = 508;
    expect(b.length).toBe(fixed + 2 + 4 * 2 + 3 + 2);
    expect(u64(b, 404)).toBe(7n); // block number after 32+20+32+32+256+32
    expect(u64(b, 428)).toBe(2000n);
    expect(u32(b, 436)).toBe(fixed); // extraData offset
    expect(u64(b, 440)).toBe(5n); // base fee, little-endian u256
    expect(u64(b, 448)).toBe(1n);
    expect(u32(b, 504)).toBe(fixed + 2); // transactions offset
    expect(hex(b.subarray(fixed, fixed + 2))).toBe('0xeeef');
    expect(u32(b, fixed + 2)).toBe(8);
    expect(u32(b, fixed + 6)).toBe(11);
    expect(hex(b.subarray(fixed + 10))).toBe('0x7e01020203');
  });

  it('adds the withdrawals offset (v2), blob gas (v3) and the withdrawals root (v4)', () => {
    const wd = { index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(0xaa), amount: 3n };
    const p = payload({
      withdrawals: [wd],
      blobGasUsed: 11n,
      excessBlobGas: 12n,
      withdrawalsRoot: new Uint8Array(32).fill(0x77),
    });
    const v2 = encodePayloadSsz(p, 2);
    expect(u32(v2, 508)).toBe(512 + 2 + 13); // withdrawals offset after extra data and txs
    expect(v2.length).toBe(512 + 2 + 13 + 44);
    const v3 = encodePayloadSsz(p, 3);
    expect(u64(v3, 512)).toBe(11n);
    expect(u64(v3, 520)).toBe(12n);
    expect(u32(v3, 436)).toBe(528);
    const v4 = encodePayloadSsz(p, 4);
    expect(hex(v4.subarray(528, 560))).toBe(hex(new Uint8Array(32).fill(0x77)));
    expect(u32(v4, 436)).toBe(560);
    expect(() => encodePayloadSsz(payload(), 4)).toThrow(/withdrawalsRoot/);
    expect(() => encodePayloadSsz(payload({ extraData: new Uint8Array(33) }), 1)).toThrow(/at most 32/);
  });

  it('prefixes v3 payloads with the parent beacon block root and signs that', async () => {
    const cfg = parseRollupConfig({
      genesis: {
        l1: { hash: `0x${'11'.repeat(32)}`, number: 0 },
        l2: { hash: `0x${'22'.repeat(32)}`, number: 0 },
        l2_time: 1000,
        system_config: {
          batcherAddr: `0x${'bb'.repeat(20)}`,
          overhead: `0x${'00'.repeat(32)}`,
          scalar: `0x${'00'.repeat(31)}01`,
          gasLimit: 30_000_000,
        },
      },
      block_time: 2,
      max_sequencer_drift: 600,
      seq_window_size: 4,
      channel_timeout: 50,
      l1_chain_id: 900,
      l2_chain_id: 901,
      regolith_time: 0,
      canyon_time: 0,
      delta_time: 0,
      ecotone_time: 1500,
      batch_inbox_address: `0x${'ff'.repeat(20)}`,
      deposit_contract_address: `0x${'dd'.repeat(20)}`,
    });
    expect(blockVersion(cfg, 1000)).toBe(2);
    expect(blockVersion(cfg, 1500)).toBe(3);
    const p = payload({ withdrawals: [], blobGasUsed: 0n, excessBlobGas: 0n });
    const root = new Uint8Array(32).fill(0x42);
    const g = gossipPayload(cfg, p, root);
    expect(g.version).toBe(3);
    expect(hex(g.bytes.subarray(0, 32))).toBe(hex(root));
    expect(hex(g.bytes.subarray(32))).toBe(hex(encodePayloadSsz(p, 3)));
    expect(() => gossipPayload(cfg, p)).toThrow(/parent beacon block root/);

    const signed = await signGossipBlock(cfg, new LocalSigner(KEY), p, root);
    expect(hex(signed.message.subarray(65))).toBe(hex(g.bytes));
    expect(recoverSigner(specSigningHash(901n, g.bytes), signed.signature)).toBe(KEY_ADDRESS);
  });
});

// Computed from the spec construction above and cross-checked with @noble/curves; pinned so a change shows.
const VECTOR_HASH = '0x726ab3cbba213a057f203ebfe15958f9f27a642c88daca9d2dc13d22e05e36da';
const VECTOR_SIG =
  '0xef9e811754555d4a9278bebdd2eb73014cd2a7a7d4157e2105fc5800333e7a90472ee57b260a825a51067c8d8823e81d251121c2cd09b49bcf8eff5f7b2eba2900';
