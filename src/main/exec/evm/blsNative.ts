// EIP-2537 BLS12_G1ADD (0x0b) and BLS12_G2ADD (0x0d) through @chainsafe/blst (native, supranational blst): its
// key/signature aggregation is exactly G1/G2 point addition. Only the common case takes the native path — enough
// gas, exact length, zero padding, canonical field elements (< p), neither input the point at infinity — and blst
// itself checks that both points are on the curve (no subgroup check: aggregation without validation, as EIP-2537
// asks for addition). Everything else (short gas, bad length or padding, infinity inputs, anything blst refuses)
// goes to the default @ethereumjs/evm precompile, so error cases, their gas (all of it) and their messages stay
// the default's. A sum at infinity comes back from blst with its infinity flag and is returned as 128/256 zeros.
import { createRequire } from 'node:module';
import type { ExecResult, PrecompileFunc, PrecompileInput } from '@ethereumjs/evm';

interface BlstPoint {
  toBytes(compress?: boolean): Uint8Array;
}
interface Blst {
  PublicKey: { fromBytes(b: Uint8Array, validate?: boolean): BlstPoint };
  Signature: { fromBytes(b: Uint8Array, validate?: boolean, infcheck?: boolean): BlstPoint };
  aggregatePublicKeys(pks: BlstPoint[], validate?: boolean): BlstPoint;
  aggregateSignatures(sigs: BlstPoint[], groupcheck?: boolean): BlstPoint;
}

export const BLS_G1_ADD_ADDRESS = '000000000000000000000000000000000000000b';
export const BLS_G2_ADD_ADDRESS = '000000000000000000000000000000000000000d';
/** EIP-2537 gas. */
export const BLS_G1_ADD_GAS = 375n;
export const BLS_G2_ADD_GAS = 600n;

/** The BLS12-381 base field modulus, as 48 big-endian bytes. */
const P = Buffer.from(
  '1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab',
  'hex',
);

let loaded: Blst | null | undefined;
/** @chainsafe/blst, or null when its native binding cannot load here (then the default runs). */
function blst(): Blst | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@chainsafe/blst') as Blst;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** Whether each 64-byte field element of `data` has 16 zero bytes then a value below p. */
function canonical(data: Uint8Array): boolean {
  for (let off = 0; off < data.length; off += 64) {
    for (let i = off; i < off + 16; i++) if (data[i] !== 0) return false;
    if (Buffer.compare(data.subarray(off + 16, off + 64), P) >= 0) return false;
  }
  return true;
}

const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

/** EIP-2537 G1 point (x ‖ y, 64 bytes each) → blst's 96-byte uncompressed form. */
function g1ToBlst(e: Uint8Array): Uint8Array {
  const out = new Uint8Array(96);
  out.set(e.subarray(16, 64), 0);
  out.set(e.subarray(80, 128), 48);
  return out;
}

/** EIP-2537 G2 point (x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1) → blst's 192-byte form (c1 before c0). */
function g2ToBlst(e: Uint8Array): Uint8Array {
  const out = new Uint8Array(192);
  out.set(e.subarray(80, 128), 0);
  out.set(e.subarray(16, 64), 48);
  out.set(e.subarray(208, 256), 96);
  out.set(e.subarray(144, 192), 144);
  return out;
}

/** blst's uncompressed output (48-byte words; G2 with c1 first) → EIP-2537 encoding; infinity → zeros. */
function fromBlst(b: Uint8Array, g2: boolean): Uint8Array {
  const out = new Uint8Array(g2 ? 256 : 128);
  if (((b[0] as number) & 0x40) !== 0) return out;
  const words = g2 ? [1, 0, 3, 2] : [0, 1];
  words.forEach((w, i) => {
    out.set(b.subarray(w * 48, w * 48 + 48), i * 64 + 16);
  });
  return out;
}

function nativeAdd(fallback: PrecompileFunc, g2: boolean): PrecompileFunc {
  const size = g2 ? 256 : 128;
  const gas = g2 ? BLS_G2_ADD_GAS : BLS_G1_ADD_GAS;
  return (input: PrecompileInput): ExecResult | Promise<ExecResult> => {
    const lib = blst();
    const data = input.data;
    if (lib === null || input.gasLimit < gas || data.length !== 2 * size || !canonical(data)) return fallback(input);
    const a = data.subarray(0, size);
    const b = data.subarray(size);
    if (isZero(a) || isZero(b)) return fallback(input);
    let sum: Uint8Array;
    try {
      sum = g2
        ? lib
            .aggregateSignatures(
              [lib.Signature.fromBytes(g2ToBlst(a), false, false), lib.Signature.fromBytes(g2ToBlst(b), false, false)],
              false,
            )
            .toBytes(false)
        : lib
            .aggregatePublicKeys(
              [lib.PublicKey.fromBytes(g1ToBlst(a), false), lib.PublicKey.fromBytes(g1ToBlst(b), false)],
              false,
            )
            .toBytes(false);
    } catch {
      // Not on the curve (or anything else blst refuses): the default decides, with its error and gas.
      return fallback(input);
    }
    return { executionGasUsed: gas, returnValue: fromBlst(sum, g2) };
  };
}

/** BLS12_G1ADD through blst, falling back to `fallback` (the default precompile) outside the common case. */
export const blsG1AddNative = (fallback: PrecompileFunc): PrecompileFunc => nativeAdd(fallback, false);
/** BLS12_G2ADD through blst, falling back to `fallback` (the default precompile) outside the common case. */
export const blsG2AddNative = (fallback: PrecompileFunc): PrecompileFunc => nativeAdd(fallback, true);

/** Replaces the map's BLS12_G1ADD / BLS12_G2ADD (present from Prague/Isthmus) with the native ones, in place. */
export function applyNativeBls(map: Map<string, PrecompileFunc | undefined>): void {
  const g1 = map.get(BLS_G1_ADD_ADDRESS);
  if (g1 !== undefined) map.set(BLS_G1_ADD_ADDRESS, blsG1AddNative(g1));
  const g2 = map.get(BLS_G2_ADD_ADDRESS);
  if (g2 !== undefined) map.set(BLS_G2_ADD_ADDRESS, blsG2AddNative(g2));
}
