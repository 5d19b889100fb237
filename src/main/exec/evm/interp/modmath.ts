// ADDMOD and MULMOD over BigInt words without BigInt division where an exact cheaper route exists. V8 divides a
// 512-bit product by a 256-bit modulus slowly (schoolbook, several hundred ns); a modulus with its top bit set is
// above half of every word, so one conditional subtraction reduces an operand, and a modulus used again and again
// (a contract's field prime) is reduced by Barrett's method: two multiplications and shifts, exact after at most
// two corrective subtractions (Handbook of Applied Cryptography, algorithm 14.42).

/** 2^255: a modulus at or above it exceeds half of every 256-bit word. */
const HALF = 1n << 255n;
/** Below this, BigInt `%` is already cheap (at most three 64-bit digits in the divisor). */
const BARRETT_MIN = 1n << 192n;

/** The modulus last seen by mulmod, and the one Barrett's constants below are for. */
let seen = 0n;
let barrettModulus = 0n;
/** floor(2^(2k) / m) for the k-bit modulus m, and the shifts k − 1 and k + 1. */
let mu = 0n;
let shiftIn = 0n;
let shiftOut = 0n;

/** (a + b) mod c for 256-bit words, 0 when c is 0 (the EVM's ADDMOD). */
export function addmod(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) return 0n;
  if (c >= HALF) {
    if (a >= c) a -= c;
    if (b >= c) b -= c;
  } else if (a >= c || b >= c) return (a + b) % c;
  const s = a + b;
  return s >= c ? s - c : s;
}

/** (a · b) mod c for 256-bit words, 0 when c is 0 (the EVM's MULMOD). */
export function mulmod(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) return 0n;
  if (c >= HALF) {
    if (a >= c) a -= c;
    if (b >= c) b -= c;
  } else if (c < BARRETT_MIN || a >= c || b >= c) return (a * b) % c;
  if (c !== barrettModulus) {
    // The constants cost a division themselves: computed when the same modulus comes a second time in a row.
    if (c !== seen) {
      seen = c;
      return (a * b) % c;
    }
    const k = BigInt(c.toString(2).length);
    mu = (1n << (2n * k)) / c;
    shiftIn = k - 1n;
    shiftOut = k + 1n;
    barrettModulus = c;
  }
  // a, b < c < 2^k, so x < 2^(2k) as the method requires, and x − q·c lies in [0, 3c).
  const x = a * b;
  let r = x - (((x >> shiftIn) * mu) >> shiftOut) * c;
  while (r >= c) r -= c;
  return r;
}
