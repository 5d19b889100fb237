// ethereum/tests TransactionTests: decode each `txbytes` with @ethereumjs/tx under the fork of its Cancun result
// (or the newest fork listed when Cancun is not), recover the sender with native secp256k1, and apply the static
// checks of geth's tests/transaction_test_util.go: signature values, chain id, intrinsic gas (tern's intrinsic.ts),
// the EIP-7623 floor from Prague, plus EIP-3860's init-code limit from Shanghai. A valid transaction must match the
// expected hash, sender and intrinsic gas; an invalid one must be rejected. Every case must pass.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { forkRules } from '../../src/main/exec/evm/env.js';
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE } from '../../src/main/exec/evm/intrinsic.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { fromHex, toHexKey } from '../../src/main/primitives/bytes.js';
import { createKzg } from '../../src/main/protocol/crypto/kzg.js';
import { FIXTURES } from '../helpers/paths.js';
import { listFixtures } from './stateTestRunner.js';

const DIR = join(FIXTURES, 'ethereum-tests', 'TransactionTests');
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Fixture fork names, oldest first, with their @ethereumjs/common hardfork. */
const FORKS: [string, string][] = [
  ['Frontier', Hardfork.Chainstart],
  ['Homestead', Hardfork.Homestead],
  ['EIP150', Hardfork.TangerineWhistle],
  ['EIP158', Hardfork.SpuriousDragon],
  ['Byzantium', Hardfork.Byzantium],
  ['Constantinople', Hardfork.Constantinople],
  ['ConstantinopleFix', Hardfork.Petersburg],
  ['Istanbul', Hardfork.Istanbul],
  ['Berlin', Hardfork.Berlin],
  ['London', Hardfork.London],
  ['Paris', Hardfork.Paris],
  ['Shanghai', Hardfork.Shanghai],
  ['Cancun', Hardfork.Cancun],
  ['Prague', Hardfork.Prague],
];
const KNOWN = new Map(FORKS);

interface Expected {
  exception?: string;
  hash?: string;
  sender?: string;
  intrinsicGas?: string;
}

interface Secp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}
const secp = createRequire(import.meta.url)('secp256k1') as Secp256k1;
const kzg = createKzg();
const commons = new Map<string, Common>();

function commonFor(hardfork: string): Common {
  let c = commons.get(hardfork);
  if (c === undefined) {
    c = new Common({ chain: Mainnet, hardfork, customCrypto: { kzg } });
    commons.set(hardfork, c);
  }
  return c;
}

function word(n: bigint): Uint8Array {
  return fromHex(n.toString(16).padStart(64, '0'));
}

/** Sender of a decoded transaction, with geth's signature-value rules (low s from Homestead on). */
function sender(tx: TypedTransaction, homestead: boolean): string {
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) throw new Error('unsigned');
  let recid: bigint;
  if (tx.type === 0) recid = v === 27n || v === 28n ? v - 27n : (v - 35n) % 2n;
  else recid = v;
  if (r < 1n || s < 1n || r >= SECP256K1_N || s >= SECP256K1_N || (homestead && s > SECP256K1_N / 2n)) {
    throw new Error('invalid signature values');
  }
  if (recid !== 0n && recid !== 1n) throw new Error(`invalid recovery id ${recid}`);
  const sig = new Uint8Array(64);
  sig.set(word(r), 0);
  sig.set(word(s), 32);
  const pub = secp.ecdsaRecover(sig, Number(recid), tx.getMessageToVerifySignature(), false);
  return toHexKey(keccak256(pub.subarray(1)).subarray(12));
}

/** What tern makes of the bytes under this fork: the sender, hash and intrinsic gas, or why it is invalid. */
function check(bytes: Uint8Array, hardfork: string): { sender: string; hash: string; gas: bigint } | { error: string } {
  const common = commonFor(hardfork);
  const rules = forkRules(common, hardfork);
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(bytes, { common });
  } catch (err) {
    return { error: `decode: ${(err as Error).message}` };
  }
  let from: string;
  try {
    from = sender(tx, rules.homestead);
  } catch (err) {
    return { error: `signature: ${(err as Error).message}` };
  }
  const isCreate = tx.to === undefined;
  const gas = intrinsicGas(
    {
      data: tx.data,
      isCreate,
      accessList: 'accessList' in tx ? tx.accessList : undefined,
      authorizationCount: 'authorizationList' in tx ? tx.authorizationList.length : 0,
    },
    rules,
  );
  if (tx.gasLimit < gas) return { error: `intrinsic gas too low: have ${tx.gasLimit}, want ${gas}` };
  if (rules.prague && tx.gasLimit < floorDataGas(tx.data)) return { error: 'insufficient gas for floor data gas cost' };
  if (rules.shanghai && isCreate && tx.data.length > MAX_INITCODE_SIZE) return { error: 'max initcode size exceeded' };
  return { sender: from, hash: toHexKey(tx.hash()), gas };
}

describe('TransactionTests (Cancun, or the newest fork listed)', () => {
  for (const file of listFixtures(DIR)) {
    const tests = JSON.parse(readFileSync(file, 'utf8')) as Record<
      string,
      { txbytes: string; result: Record<string, Expected> }
    >;
    for (const [name, t] of Object.entries(tests)) {
      it(`${relative(DIR, file)} ${name}`, () => {
        for (const fork of Object.keys(t.result)) expect(KNOWN.has(fork), `unknown fork ${fork}`).toBe(true);
        const forkName = t.result.Cancun !== undefined ? 'Cancun' : FORKS.filter(([f]) => t.result[f]).at(-1)?.[0];
        expect(forkName, 'a fork to run').toBeDefined();
        const expected = t.result[forkName as string] as Expected;
        const got = check(fromHex(t.txbytes), KNOWN.get(forkName as string) as string);
        if (expected.exception !== undefined) {
          expect(
            'error' in got,
            `expected ${expected.exception}, got ${JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
          ).toBe(true);
          return;
        }
        if ('error' in got) throw new Error(`expected a valid transaction, got ${got.error}`);
        expect(got.hash).toBe(`0x${(expected.hash as string).replace(/^0x/, '').toLowerCase()}`);
        expect(got.sender).toBe(`0x${(expected.sender as string).replace(/^0x/, '').toLowerCase()}`);
        expect(got.gas).toBe(BigInt(expected.intrinsicGas as string));
      });
    }
  }
});
