// The curve-heavy precompiles of OP chains: P256VERIFY (RIP-7212, Fjord; tern's @noble/curves implementation) and
// the EIP-2537 BLS12-381 operations (Isthmus) as @ethereumjs/evm runs them by default (NobleBLS, pure JS). The
// only native BLS path reachable with the installed packages is @chainsafe/blst's signature API, whose point
// aggregation is G1/G2 addition: it is timed against NobleBLS's addG1/addG2 on the same points, encoding
// conversion included, so the rows say what swapping it in would buy. MSM, pairing and map-to-curve have no blst
// counterpart in that API (and @ethereumjs/evm's MCLBLS needs mcl-wasm, which is not installed).
import { createHash, generateKeyPairSync, sign as signNode, verify as verifyNode } from 'node:crypto';
import { createRequire } from 'node:module';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { PrecompileFunc, PrecompileInput } from '@ethereumjs/evm';
import { createEVM, NobleBLS } from '@ethereumjs/evm';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { p256 } from '@noble/curves/nist.js';
import { Bench, type Task } from 'tinybench';
import {
  BLS_G1_ADD_ADDRESS,
  BLS_G2_ADD_ADDRESS,
  blsG1AddNative,
  blsG2AddNative,
} from '../src/main/exec/evm/blsNative.js';
import { p256Verify } from '../src/main/exec/evm/op/precompiles.js';
import type { BenchRow, BenchSuite } from './suite.js';

interface BlstPoint {
  toBytes(compress?: boolean): Uint8Array;
}
interface Blst {
  PublicKey: { fromBytes(b: Uint8Array, validate?: boolean): BlstPoint };
  Signature: { fromBytes(b: Uint8Array, validate?: boolean, infcheck?: boolean): BlstPoint };
  aggregatePublicKeys(pks: BlstPoint[], validate?: boolean): BlstPoint;
  aggregateSignatures(sigs: BlstPoint[], groupcheck?: boolean): BlstPoint;
}
const blst = createRequire(import.meta.url)('@chainsafe/blst') as Blst;

const be = (v: bigint, len: number) => Buffer.from(v.toString(16).padStart(len * 2, '0'), 'hex');
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const fp64 = (v: bigint) => be(v, 64); // EIP-2537: 16 zero bytes then the 48-byte field element

type G1 = ReturnType<typeof bls12_381.G1.Point.BASE.multiply>;
type G2 = ReturnType<typeof bls12_381.G2.Point.BASE.multiply>;
const g1Eip = (p: G1) => {
  const a = p.toAffine();
  return concat(fp64(a.x), fp64(a.y));
};
const g2Eip = (p: G2) => {
  const a = p.toAffine();
  return concat(fp64(a.x.c0), fp64(a.x.c1), fp64(a.y.c0), fp64(a.y.c1));
};
/** EIP-2537 128-byte G1 → blst's 96-byte uncompressed form (drop each coordinate's 16-byte padding). */
const g1ToBlst = (e: Uint8Array) => concat(e.subarray(16, 64), e.subarray(80, 128));
/** EIP-2537 256-byte G2 (c0 first) → blst's 192-byte uncompressed form (c1 first). */
const g2ToBlst = (e: Uint8Array) =>
  concat(e.subarray(80, 128), e.subarray(16, 64), e.subarray(208, 256), e.subarray(144, 192));
const pad16 = (b: Uint8Array) => concat(new Uint8Array(16), b);
const blstG1ToEip = (b: Uint8Array) => concat(pad16(b.subarray(0, 48)), pad16(b.subarray(48, 96)));
const blstG2ToEip = (b: Uint8Array) =>
  concat(pad16(b.subarray(48, 96)), pad16(b.subarray(0, 48)), pad16(b.subarray(144, 192)), pad16(b.subarray(96, 144)));

function row(t: Task | undefined, note: string): BenchRow | undefined {
  const r = t?.result as { throughput?: { mean: number }; latency?: { mean: number } } | undefined;
  if (!t || !r?.latency) return undefined;
  return { task: t.name, opsPerSec: 1000 / r.latency.mean, meanMicros: r.latency.mean * 1000, note };
}

export const precompilesSuite: BenchSuite = {
  name: 'precompiles',
  async run() {
    // P256VERIFY input: hash ‖ r ‖ s ‖ x ‖ y for a valid signature.
    const sk = p256.utils.randomSecretKey();
    const pub = p256.getPublicKey(sk, false);
    const msg = new Uint8Array(createHash('sha256').update('tern').digest());
    const sig = p256.sign(msg, sk, { prehash: false, format: 'compact' });
    const p256Input = {
      data: concat(msg, sig, pub.subarray(1)),
      gasLimit: 10_000n,
    } as unknown as PrecompileInput;
    if (p256Verify(p256Input).returnValue[31] !== 1) throw new Error('P256 bench input does not verify');
    // node:crypto (OpenSSL) verifies P-256 natively but only over a message it hashes itself, so it cannot serve
    // RIP-7212 (which gives the hash); timed as the native reference.
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const nodeSig = signNode('sha256', Buffer.from('tern'), keys.privateKey);
    const nodePub = keys.publicKey;

    const bls = new NobleBLS();
    const a1 = bls12_381.G1.Point.BASE.multiply(7n);
    const b1 = bls12_381.G1.Point.BASE.multiply(11n);
    const a2 = bls12_381.G2.Point.BASE.multiply(7n);
    const b2 = bls12_381.G2.Point.BASE.multiply(11n);
    const g1Add = concat(g1Eip(a1), g1Eip(b1));
    const g2Add = concat(g2Eip(a2), g2Eip(b2));
    const scalar = be(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000n - 5n, 32);
    const g1Msm1 = concat(g1Eip(a1), scalar);
    const g1Msm8 = concat(
      ...Array.from({ length: 8 }, (_, i) => concat(g1Eip(bls12_381.G1.Point.BASE.multiply(BigInt(i + 3))), scalar)),
    );
    const g2Msm1 = concat(g2Eip(a2), scalar);
    // e(a1, b2) · e(-a1, b2) = 1: a two-pair check that succeeds.
    const pairing2 = concat(g1Eip(a1), g2Eip(b2), g1Eip(a1.negate()), g2Eip(b2));
    const mapFp = fp64(123456789n);
    const mapFp2 = concat(fp64(123n), fp64(456n));
    if (bls.pairingCheck(pairing2)[31] !== 1) throw new Error('pairing bench input does not check');
    // blst's aggregation must give the same sums as NobleBLS.
    const blstAdd1 = () =>
      blstG1ToEip(
        blst
          .aggregatePublicKeys(
            [
              blst.PublicKey.fromBytes(g1ToBlst(g1Add.subarray(0, 128))),
              blst.PublicKey.fromBytes(g1ToBlst(g1Add.subarray(128))),
            ],
            false,
          )
          .toBytes(false),
      );
    const blstAdd2 = () =>
      blstG2ToEip(
        blst
          .aggregateSignatures(
            [
              blst.Signature.fromBytes(g2ToBlst(g2Add.subarray(0, 256))),
              blst.Signature.fromBytes(g2ToBlst(g2Add.subarray(256))),
            ],
            false,
          )
          .toBytes(false),
      );
    if (Buffer.compare(blstAdd1(), bls.addG1(g1Add)) !== 0) throw new Error('blst G1 sum differs from NobleBLS');
    if (Buffer.compare(blstAdd2(), bls.addG2(g2Add)) !== 0) throw new Error('blst G2 sum differs from NobleBLS');

    // The precompiles as the EVM calls them: the default 0x0b/0x0d and tern's blst ones (src/main/exec/evm/blsNative.ts).
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const evm = await createEVM({ common });
    const defG1 = evm.getPrecompile(`0x${BLS_G1_ADD_ADDRESS}`) as PrecompileFunc;
    const defG2 = evm.getPrecompile(`0x${BLS_G2_ADD_ADDRESS}`) as PrecompileFunc;
    const natG1 = blsG1AddNative(defG1);
    const natG2 = blsG2AddNative(defG2);
    const pin = (data: Uint8Array) =>
      ({ data, gasLimit: 100_000n, common, _EVM: evm, _debug: undefined }) as unknown as PrecompileInput;
    const g1In = pin(g1Add);
    const g2In = pin(g2Add);
    const same = async (a: PrecompileFunc, b: PrecompileFunc, i: PrecompileInput) =>
      Buffer.compare((await a(i)).returnValue, (await b(i)).returnValue) === 0;
    if (!(await same(natG1, defG1, g1In)) || !(await same(natG2, defG2, g2In)))
      throw new Error('tern blst precompile differs from the default');

    const bench = new Bench({ time: 400, warmupTime: 100 });
    bench
      .add('P256VERIFY (tern, @noble/curves p256)', () => void p256Verify(p256Input))
      .add('P-256 ECDSA verify incl. SHA-256, node:crypto (OpenSSL) — reference', () => {
        verifyNode('sha256', Buffer.from('tern'), nodePub, nodeSig);
      })
      .add('BLS G1ADD, NobleBLS (ethereumjs default)', () => void bls.addG1(g1Add))
      .add('BLS G1ADD, @chainsafe/blst aggregatePublicKeys + re-encoding', () => void blstAdd1())
      .add('BLS G2ADD, NobleBLS (ethereumjs default)', () => void bls.addG2(g2Add))
      .add('BLS G2ADD, @chainsafe/blst aggregateSignatures + re-encoding', () => void blstAdd2())
      .add('BLS12_G1ADD precompile 0x0b, ethereumjs default', async () => void (await defG1(g1In)))
      .add('BLS12_G1ADD precompile 0x0b, tern blsNative (blst)', async () => void (await natG1(g1In)))
      .add('BLS12_G2ADD precompile 0x0d, ethereumjs default', async () => void (await defG2(g2In)))
      .add('BLS12_G2ADD precompile 0x0d, tern blsNative (blst)', async () => void (await natG2(g2In)))
      .add('BLS G1MSM k=1, NobleBLS', () => void bls.msmG1(g1Msm1))
      .add('BLS G1MSM k=8, NobleBLS', () => void bls.msmG1(g1Msm8))
      .add('BLS G2MSM k=1, NobleBLS', () => void bls.msmG2(g2Msm1))
      .add('BLS PAIRING 2 pairs, NobleBLS', () => void bls.pairingCheck(pairing2))
      .add('BLS MAP_FP_TO_G1, NobleBLS', () => void bls.mapFPtoG1(mapFp))
      .add('BLS MAP_FP2_TO_G2, NobleBLS', () => void bls.mapFP2toG2(mapFp2));
    await bench.run();
    const t = (name: string) => bench.tasks.find((x) => x.name === name);
    const rows: BenchRow[] = [];
    const ratio = (fast: string, slow: string) => {
      const f = row(t(fast), '');
      const s = row(t(slow), '');
      return f && s ? `${(s.meanMicros / f.meanMicros).toFixed(1)}× the NobleBLS row` : '';
    };
    for (const task of bench.tasks) {
      const note = task.name.includes('blsNative')
        ? ratio(task.name, task.name.replace('tern blsNative (blst)', 'ethereumjs default')).replace(
            'NobleBLS row',
            'default precompile',
          )
        : task.name.includes('blst')
          ? ratio(
              task.name,
              task.name.startsWith('BLS G1ADD')
                ? 'BLS G1ADD, NobleBLS (ethereumjs default)'
                : 'BLS G2ADD, NobleBLS (ethereumjs default)',
            )
          : '';
      const r = row(task, note);
      if (r) rows.push(r);
    }
    return rows;
  },
};
