// One suite over both implementations: recovered senders of real transactions of every type.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx } from '@ethereumjs/tx';
import { afterAll, describe, expect, it } from 'vitest';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { type SenderRecovery, streamedSender } from '../../../../../src/main/exec/senders/interface.js';
import { PooledSenderRecovery } from '../../../../../src/main/exec/senders/pooled.js';
import { asList, type RlpDecoded, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const KEY = Uint8Array.from(Buffer.from('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318', 'hex'));
const secp = createRequire(import.meta.url)('secp256k1') as { publicKeyCreate(k: Uint8Array, c: boolean): Uint8Array };
const { keccak256 } = await import('../../../../../src/main/native/keccak.js');
const ADDRESS = hex(keccak256(secp.publicKeyCreate(KEY, false).subarray(1)).slice(12));

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const base = { nonce: 1n, gasLimit: 21000n, to: `0x${'11'.repeat(20)}` as `0x${string}`, value: 5n };
const signed = [
  createTx({ ...base, type: 0, gasPrice: 10n }, { common }).sign(KEY),
  createTx({ ...base, type: 1, gasPrice: 10n, accessList: [] }, { common }).sign(KEY),
  createTx({ ...base, type: 2, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, { common }).sign(KEY),
].map((tx) => tx.serialize());
// Types 3 and 4 signed by hand (ethereumjs wants a KZG setup for type 3): sign keccak(type ‖ rlp(fields)).
const secpSign = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};
function signTyped(type: number, fields: RlpDecoded[]): Uint8Array {
  const body = rlpEncode(fields as Parameters<typeof rlpEncode>[0]);
  const { signature, recid } = secpSign.ecdsaSign(keccak256(Uint8Array.of(type, ...body)), KEY);
  const trim = (b: Uint8Array) => b.subarray(b.findIndex((x) => x !== 0));
  const full = [
    ...fields,
    recid ? Uint8Array.of(1) : new Uint8Array(0),
    trim(signature.subarray(0, 32)),
    trim(signature.subarray(32)),
  ];
  return Uint8Array.of(type, ...rlpEncode(full as Parameters<typeof rlpEncode>[0]));
}
const n = (x: number) => (x === 0 ? new Uint8Array(0) : Uint8Array.of(x));
const to = Uint8Array.from(Buffer.from('11'.repeat(20), 'hex'));
signed.push(
  signTyped(3, [
    n(1),
    n(1),
    n(1),
    n(10),
    n(21),
    to,
    n(5),
    new Uint8Array(0),
    [],
    n(1),
    [Uint8Array.of(1, ...new Uint8Array(31))],
  ]),
  signTyped(4, [n(1), n(1), n(1), n(10), n(21), to, n(5), new Uint8Array(0), [], [[n(1), to, n(0), n(0), n(1), n(1)]]]),
);
// A pre-EIP-155 legacy signature (v = 27/28), as old chains and some deploy keys still use.
const unprotected = createTx(
  { ...base, type: 0, gasPrice: 10n },
  { common: new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle }) },
)
  .sign(KEY)
  .serialize();

describe.each([
  ['inline', () => new InlineSenderRecovery()],
  ['pooled', () => new PooledSenderRecovery({ threads: 2, chunkSize: 3 })],
] as const)('%s sender recovery', (_name, make) => {
  const recovery: SenderRecovery = make();
  afterAll(() => recovery.close());

  it('recovers the signer of every transaction type', async () => {
    const results = await recovery.recover([...signed, unprotected]);
    expect(results.map((r) => (r.ok ? hex(r.address) : r.message))).toEqual(Array(6).fill(ADDRESS));
  });

  it("takes a deposit's sender from its from field (deposits carry no signature)", async () => {
    const from = Uint8Array.from(Buffer.from('deaddeaddeaddeaddeaddeaddeaddeaddead0001', 'hex'));
    const deposit = encodeDepositTx({
      sourceHash: new Uint8Array(32).fill(7),
      from,
      to: from,
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    const [r] = await recovery.recover([deposit]);
    expect(r?.ok && hex(r.address)).toBe('0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001');
  });

  it('recovers the senders of the execution-apis chain', async () => {
    const txs: Uint8Array[] = [];
    for (const raw of rlpItems(readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp')))) {
      const body = asList(rlpDecode(raw), 'block')[1] as RlpDecoded[];
      for (const t of body) txs.push(t instanceof Uint8Array ? t : rlpEncode(t as Parameters<typeof rlpEncode>[0]));
    }
    const results = await recovery.recover(txs);
    expect(results.length).toBe(txs.length);
    expect(results.every((r) => r.ok)).toBe(true);
    // Block 1's transactions were sent by the genesis-funded account (see eth_getBlockReceipts fixtures).
    expect(results[0]?.ok && hex(results[0].address)).toBe('0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f');
  });

  it('reports bad signatures per transaction without failing the batch', async () => {
    const f = asList(rlpDecode((signed[2] as Uint8Array).subarray(1)), 'tx');
    const highS = [...f.slice(0, 10), new Uint8Array(0), Uint8Array.from(Buffer.from('ff'.repeat(32), 'hex'))];
    const bad = Uint8Array.of(2, ...rlpEncode(highS as Parameters<typeof rlpEncode>[0]));
    const results = await recovery.recover([signed[0] as Uint8Array, bad, Uint8Array.of(9, 0xc0), new Uint8Array(0)]);
    expect(results[0]?.ok).toBe(true);
    expect(results[1]).toMatchObject({ ok: false, code: 'TX_INVALID_SIGNATURE' });
    expect(results[2]).toMatchObject({ ok: false, code: 'TX_TYPE_UNSUPPORTED' });
    expect(results[3]).toMatchObject({ ok: false, code: 'TX_DECODE' });
  });
});

describe('PooledSenderRecovery.recoverStream', () => {
  const recovery = new PooledSenderRecovery({ threads: 2, chunkSize: 8, firstChunk: 2 });
  afterAll(() => recovery.close());

  it('starts with a small chunk and doubles up to the chunk size; every transaction is found in its chunk', async () => {
    const f = asList(rlpDecode((signed[2] as Uint8Array).subarray(1)), 'tx');
    const highS = [...f.slice(0, 10), new Uint8Array(0), Uint8Array.from(Buffer.from('ff'.repeat(32), 'hex'))];
    const bad = Uint8Array.of(2, ...rlpEncode(highS as Parameters<typeof rlpEncode>[0]));
    // 25 transactions: chunks [0, 2), [2, 6), [6, 14), [14, 22), [22, 25); the last one's signature is bad.
    const txs = Array.from({ length: 25 }, (_, i) => (i === 24 ? bad : (signed[i % signed.length] as Uint8Array)));
    const stream = recovery.recoverStream(txs);
    expect(stream.starts).toEqual([0, 2, 6, 14, 22]);
    expect(stream.chunks).toHaveLength(5);
    for (let i = 0; i < 24; i++) {
      const r = await streamedSender(stream, i);
      expect(r?.ok && hex(r.address)).toBe(ADDRESS);
    }
    expect(await streamedSender(stream, 24)).toEqual({
      ok: false,
      code: 'TX_INVALID_SIGNATURE',
      message: 'invalid transaction v, r, s values',
    });
    expect(await streamedSender(stream, 25)).toBeUndefined();
    // Whole batches (recover) use equal chunks and give the same answers.
    expect((await recovery.recover(txs)).map((r) => r.ok)).toEqual([...Array(24).fill(true), false]);
  });
});
