// Differential execution: random contracts (bytecode from a weighted opcode generator: arithmetic, memory,
// storage, transient storage, KECCAK256, LOG, CALL/CALLCODE/DELEGATECALL/STATICCALL, CREATE/CREATE2, RETURN,
// REVERT, SELFDESTRUCT, jumps) and random transactions (calls with value and calldata, creations) executed by
// tern's executor (src/main/exec/evm/transition.ts, with every @ethereumjs/evm patch) and by @ethereumjs/vm as
// shipped. Per transaction the status, gas used, logs and return data must match; per case the state root.
//
// The reference must run unpatched: tern's patches replace module-level pieces of @ethereumjs/evm for the whole
// process (patches.ts), so runReference() refuses once they are installed. Run every reference case first (as
// runDifferential does), or in another thread.

import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { createEOACode7702Tx, createFeeMarket1559Tx, type EOACode7702Tx, type FeeMarket1559Tx } from '@ethereumjs/tx';
import {
  Address,
  bigIntToBytes,
  createAccount,
  eoaCode7702SignAuthorization,
  privateToAddress,
  setLengthLeft,
} from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { createBlockEnv } from '../../src/main/exec/evm/env.js';
import { importEvmModule } from '../../src/main/exec/evm/internals.js';
import { applyTransaction, Executor } from '../../src/main/exec/evm/transition.js';
import { FlatState } from '../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateDiff, StateReader } from '../../src/main/exec/state/interface.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { bigintToMinimalBytes, fromHex, toHexKey } from '../../src/main/primitives/bytes.js';
import { rlpEncode } from '../../src/main/primitives/rlp.js';
import { EMPTY_TRIE_ROOT, secureTrieRoot, type TrieEntry } from '../../src/main/primitives/trie/root.js';
import { createKzg } from '../../src/main/protocol/crypto/kzg.js';
import { mulberryRng, type Rng } from '../rng.js';

const HARDFORK = Hardfork.Prague;
const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));
const COINBASE = fromHex('0x00000000000000000000000000000000000c0ffe');
const BASE_FEE = 7n;
const NUMBER = 100n;
const TIMESTAMP = 1_700_000_000n;
const GAS_LIMIT = 60_000_000n;
const PREV_RANDAO = keccak256(new TextEncoder().encode('prevrandao'));

/** One account of the pre-state. */
export interface PreAccount {
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly code: Uint8Array;
  /** Slot (0x + 64 hex) → nonzero value. */
  readonly storage: Map<string, bigint>;
}

/** A transaction of a case, signed. */
export interface CaseTx {
  readonly tx: FeeMarket1559Tx | EOACode7702Tx;
  readonly sender: Uint8Array;
}

export interface DiffCase {
  readonly seed: number;
  readonly pre: PreAccount[];
  readonly txs: CaseTx[];
}

/** What both sides must agree on. */
export interface Outcome {
  readonly txs: Array<{ status: 0 | 1; gasUsed: bigint; logs: string; returnValue: string }>;
  readonly stateRoot: string;
}

const CONTRACTS = 6;
const contractAddress = (i: number) => fromHex(`0x${'c0'.padEnd(38, '0')}${(i + 1).toString(16).padStart(2, '0')}`);
const SENDER_KEYS = [1, 2, 3].map((i) => setLengthLeft(bigIntToBytes(BigInt(i) * 0x1234567n), 32));
/** The EIP-7702 authority of the set-code transactions (never a sender): its code is pointed at random contracts. */
const AUTHORITY_KEY = setLengthLeft(bigIntToBytes(0xa17b0a7n), 32);

// --- bytecode generation

const PUSH1 = 0x60;
const PUSH32 = 0x7f;

/** PUSH of `v` in as few bytes as it needs (PUSH0 for zero). */
function push(out: number[], v: bigint): void {
  if (v === 0n) {
    out.push(0x5f);
    return;
  }
  const b = bigintToMinimalBytes(v);
  out.push(PUSH1 + b.length - 1, ...b);
}

/** Init code that deploys `runtime` (≤ 32 bytes): MSTORE it, RETURN its bytes. */
function deployer(runtime: Uint8Array): Uint8Array {
  const out: number[] = [];
  out.push(PUSH32, ...setLengthLeft(runtime, 32));
  push(out, 0n);
  out.push(0x52); // MSTORE
  push(out, BigInt(runtime.length));
  push(out, BigInt(32 - runtime.length));
  out.push(0xf3); // RETURN
  return new Uint8Array(out);
}

/** Which opcodes a contract's code draws from: all of them, or only those tern's own interpreter implements. */
/**
 * `full`: any opcode; `interp`: the first contracts use only tern's interpreter's opcodes; `transfers`: `full` code,
 * and transactions that are mostly plain value transfers (src/main/exec/evm/plainTransfer.ts) and their edge cases.
 */
export type CodeProfile = 'full' | 'interp' | 'transfers';

/** Environment and block reads of each profile (src/main/exec/evm/interp/analysis.ts lists the implemented ones). */
const ENV_OPS = [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a];
const ENV_OPS_INTERP = [
  0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
];
const DATA_OPS = [0x31, 0x3b, 0x3f, 0x35, 0x37, 0x39, 0x3c, 0x3e];
const DATA_OPS_INTERP = [0x31, 0x3b, 0x3f, 0x35, 0x37, 0x39, 0x3c, 0x3e];

class CodeGen {
  /** The profile of the code generated next. */
  profile: CodeProfile = 'full';

  constructor(
    private readonly rng: Rng,
    private readonly targets: readonly Uint8Array[],
  ) {}

  /** A memory offset: mostly small, in the interpreter profile sometimes far (memory gas, out of gas). */
  private offset(n: number): bigint {
    if (this.profile === 'interp' && this.rng.int(40) === 0) {
      return this.rng.pick([1n << 16n, 1n << 20n, 1n << 31n, 1n << 32n, 1n << 64n, (1n << 256n) - 1n]);
    }
    return this.small(n);
  }

  private word(): bigint {
    const r = this.rng;
    switch (r.int(6)) {
      case 0:
        return 0n;
      case 1:
        return BigInt(r.int(4));
      case 2:
        return BigInt(r.int(300));
      case 3:
        return (1n << 256n) - 1n - BigInt(r.int(3));
      case 4:
        return 1n << BigInt(r.int(256));
      default:
        return BigInt(toHexKey(r.bytes(32)));
    }
  }
  private small(n: number): bigint {
    return BigInt(this.rng.int(n));
  }
  private address(): bigint {
    const r = this.rng;
    if (r.int(8) === 0) return BigInt(r.int(12)); // precompiles and empty low addresses
    return BigInt(toHexKey(r.pick(this.targets)));
  }

  /** One step: its arguments pushed (last argument first), then the opcode. */
  private step(out: number[]): void {
    const r = this.rng;
    const args = (...vs: bigint[]) => {
      for (let i = vs.length - 1; i >= 0; i--) push(out, vs[i] as bigint);
    };
    const k = r.int(100);
    if (k < 22) {
      // Arithmetic, comparison, bitwise: binary and ternary.
      const op = r.pick([
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
        0x18, 0x1a, 0x1b, 0x1c, 0x1d,
      ]);
      if (op === 0x08 || op === 0x09) args(this.word(), this.word(), this.word());
      else args(this.word(), this.word());
      out.push(op);
    } else if (k < 26) {
      args(this.word());
      out.push(r.pick([0x15, 0x19, 0x50])); // ISZERO, NOT, POP
    } else if (k < 32) {
      // Memory: MSTORE, MSTORE8, MLOAD, MCOPY, KECCAK256.
      const op = r.pick([0x52, 0x53, 0x51, 0x5e, 0x20]);
      if (op === 0x52 || op === 0x53) args(this.offset(200), this.word());
      else if (op === 0x51) args(this.offset(200));
      else if (op === 0x5e) args(this.offset(200), this.offset(200), this.offset(80));
      else args(this.offset(200), this.offset(100));
      out.push(op);
    } else if (k < 42) {
      // Storage: SSTORE, SLOAD, TSTORE, TLOAD over a few slots (zero, fresh and rewritten values).
      const op = r.pick([0x55, 0x55, 0x54, 0x5d, 0x5c]);
      if (op === 0x55 || op === 0x5d) args(this.small(8), r.int(3) === 0 ? 0n : this.word());
      else args(this.small(8));
      out.push(op);
    } else if (k < 52) {
      // Environment and block (BLOCKHASH of a recent, current, future or far block; BLOBHASH of a low index).
      const op = r.pick(this.profile === 'interp' ? ENV_OPS_INTERP : ENV_OPS);
      if (op === 0x40) args(r.int(4) === 0 ? this.word() : this.small(400));
      else if (op === 0x49) args(r.int(4) === 0 ? this.word() : this.small(3));
      out.push(op);
      out.push(0x50);
    } else if (k < 57) {
      // Account and data reads: BALANCE, EXTCODESIZE, EXTCODEHASH, CALLDATALOAD, CALLDATACOPY, CODECOPY,
      // EXTCODECOPY, RETURNDATACOPY.
      const op = r.pick(this.profile === 'interp' ? DATA_OPS_INTERP : DATA_OPS);
      if (op === 0x31 || op === 0x3b || op === 0x3f) args(this.address());
      else if (op === 0x35) args(this.small(80));
      else if (op === 0x3c)
        args(
          this.address(),
          this.profile === 'interp' ? this.offset(100) : this.small(100),
          this.small(50),
          this.small(50),
        );
      else if (op === 0x3e) args(this.offset(100), this.small(8), this.small(8));
      else args(this.offset(100), this.small(60), this.small(60));
      out.push(op);
    } else if (k < 62) {
      // LOG0..LOG4 over memory.
      const n = r.int(5);
      const topics = Array.from({ length: n }, () => this.word());
      args(this.offset(150), this.small(70), ...topics);
      out.push(0xa0 + n);
    } else if (k < 80 && this.profile === 'interp') {
      // No calls or creations here: exponentiation, signed shifts and a rare stack overflow instead.
      if (r.int(20) === 0) {
        for (let i = 0; i < 1025; i++) out.push(0x5f); // PUSH0 × 1025: overflows whatever the stack holds
      } else {
        args(this.word(), this.word());
        out.push(r.pick([0x0a, 0x0a, 0x1d, 0x05, 0x07, 0x0b]));
      }
    } else if (k < 75) {
      // Calls: gas, address, (value), in offset/size, out offset/size.
      const op = r.pick([0xf1, 0xf1, 0xf2, 0xf4, 0xfa]);
      const gas = r.int(4) === 0 ? this.word() : BigInt(r.int(200_000));
      const io = [this.small(100), this.small(64), this.small(100), this.small(64)];
      if (op === 0xf1 || op === 0xf2) args(gas, this.address(), BigInt(r.int(3) === 0 ? r.int(1000) : 0), ...io);
      else args(gas, this.address(), ...io);
      out.push(op);
      if (r.int(2) === 0) out.push(0x50);
    } else if (k < 80) {
      // CREATE / CREATE2 of a small contract written to memory first (or of whatever memory holds).
      if (r.int(3) !== 0) {
        const init = deployer(r.bytes(1 + r.int(31)));
        for (let at = 0; at < init.length; at += 32) {
          // MSTORE each 32-byte chunk of the init code, left-aligned.
          const chunk = new Uint8Array(32);
          chunk.set(init.subarray(at, at + 32));
          args(BigInt(at), BigInt(toHexKey(chunk)));
          out.push(0x52);
        }
        const value = BigInt(r.int(500));
        if (r.int(2) === 0) {
          args(value, 0n, BigInt(init.length));
          out.push(0xf0); // CREATE
        } else {
          args(value, 0n, BigInt(init.length), this.small(4));
          out.push(0xf5); // CREATE2
        }
      } else {
        args(BigInt(r.int(100)), this.small(64), this.small(64));
        out.push(0xf0);
      }
    } else if (k < 84) {
      // Stack shuffles (may underflow: an exceptional halt both sides must agree on).
      out.push(r.int(2) === 0 ? 0x80 + r.int(3) : 0x90 + r.int(2));
    } else if (k < 88) {
      // JUMPDEST, or a JUMPI not taken, or a jump to a random place (mostly invalid).
      const j = r.int(4);
      if (j === 0) out.push(0x5b);
      else if (j === 1) args(BigInt(r.int(out.length + 40)), 0n);
      else args(BigInt(r.int(out.length + 40)));
      if (j === 1) out.push(0x57);
      else if (j > 1) out.push(0x56);
    } else if (k < 92) {
      out.push(r.pick([0x58, 0x59, 0x5a, 0x38]));
      out.push(0x50);
    } else if (k < 94) {
      args(this.small(100), this.small(40));
      out.push(r.pick([0xf3, 0xfd])); // RETURN, REVERT
    } else if (k < 95) {
      if (this.profile === 'interp') {
        args(this.offset(100), this.small(40));
        out.push(0xfd); // REVERT (no SELFDESTRUCT in this profile)
        return;
      }
      args(this.address());
      out.push(0xff); // SELFDESTRUCT
    } else if (k < 96) {
      out.push(r.pick([0x00, 0x00, 0x00, 0xfe])); // STOP, INVALID
    } else if (k < 97) {
      out.push(this.profile === 'interp' ? r.pick([0x0c, 0x21, 0xef, 0xfe]) : r.int(256)); // undefined bytes
    } else {
      args(this.word(), this.word());
      out.push(r.pick([0x01, 0x02, 0x16, 0x17, 0x18, 0x1b, 0x1c]));
    }
  }

  code(steps: number): Uint8Array {
    const out: number[] = [];
    for (let i = 0; i < steps; i++) this.step(out);
    // End most contracts with a RETURN of some memory, so return data is compared.
    if (this.rng.int(3) !== 0) {
      push(out, this.small(64));
      push(out, this.small(64));
      out.push(this.rng.int(4) === 0 ? 0xfd : 0xf3);
    }
    return new Uint8Array(out);
  }
}

/**
 * The case of `seed`: a pre-state of senders and random contracts, and a few transactions. In the `interp` profile
 * the first four contracts use only the opcodes of tern's own interpreter (the other two call them, statically
 * too), and a third of the transactions get barely more than their intrinsic gas.
 */
export function generateCase(seed: number, txCount = 4, profile: CodeProfile = 'full'): DiffCase {
  // mulberry32: the same seed gives the same case on every machine.
  const rng = mulberryRng(seed);
  const senders = SENDER_KEYS.map((k) => privateToAddress(k));
  const contracts = Array.from({ length: CONTRACTS }, (_, i) => contractAddress(i));
  const empties = [
    fromHex('0x000000000000000000000000000000000000dead'),
    fromHex('0x00000000000000000000000000000000000000aa'),
  ];
  const authority = privateToAddress(AUTHORITY_KEY);
  const targets = [...contracts, ...senders, ...empties, COINBASE, DELEGATED, authority];
  const gen = new CodeGen(rng, targets);
  const pre: PreAccount[] = [];
  for (const s of senders)
    pre.push({ address: s, nonce: 0n, balance: 10n ** 20n, code: new Uint8Array(0), storage: new Map() });
  pre.push({ address: COINBASE, nonce: 0n, balance: 1n, code: new Uint8Array(0), storage: new Map() });
  for (const [ci, c] of contracts.entries()) {
    gen.profile = profile === 'interp' && ci < 4 ? 'interp' : 'full';
    const storage = new Map<string, bigint>();
    for (let i = rng.int(4); i > 0; i--)
      storage.set(toHexKey(setLengthLeft(bigIntToBytes(BigInt(rng.int(8))), 32)), BigInt(1 + rng.int(1000)));
    pre.push({ address: c, nonce: 1n, balance: BigInt(rng.int(3) * 1000), code: gen.code(10 + rng.int(60)), storage });
  }
  pre.push(...TRANSFER_PRE);
  const nonces = senders.map(() => 0n);
  let authorityNonce = 0n;
  const txs: CaseTx[] = [];
  for (let i = 0; i < txCount; i++) {
    const s = rng.int(senders.length);
    if (profile === 'transfers' && rng.int(4) !== 0) {
      txs.push({
        tx: transferTx(rng, nonces[s] as bigint, [...senders, ...empties, COINBASE]).sign(SENDER_KEYS[s] as Uint8Array),
        sender: senders[s] as Uint8Array,
      });
      nonces[s] = (nonces[s] as bigint) + 1n;
      continue;
    }
    gen.profile = profile;
    const setCode = profile !== 'transfers' && rng.int(8) === 0;
    const create = !setCode && rng.int(6) === 0;
    const to = setCode
      ? new Address(authority)
      : create
        ? undefined
        : new Address(rng.pick(rng.int(8) === 0 ? targets : contracts));
    const data = create ? gen.code(5 + rng.int(30)) : rng.bytes(rng.int(68));
    // EIP-2930 access lists on a third of the calls: warm addresses (the callee, contracts, others) and slots 0-7.
    const accessList =
      !create && rng.int(3) === 0
        ? Array.from({ length: 1 + rng.int(3) }, () => ({
            address: toHexKey(rng.int(2) === 0 ? (to as Address).bytes : rng.pick(targets)) as `0x${string}`,
            storageKeys: Array.from(
              { length: rng.int(4) },
              () => toHexKey(setLengthLeft(bigIntToBytes(BigInt(rng.int(8))), 32)) as `0x${string}`,
            ),
          }))
        : [];
    const fields = {
      chainId: 1n,
      nonce: nonces[s] as bigint,
      maxFeePerGas: 100n,
      maxPriorityFeePerGas: BigInt(rng.int(3)),
      gasLimit: BigInt(
        profile === 'interp' && !create && rng.int(3) === 0
          ? 24_000 + rng.int(30_000)
          : 60_000 + (profile === 'interp' ? 41 * data.length : 0) + rng.int(1_500_000),
      ),
      ...(to !== undefined ? { to } : {}),
      value: BigInt(rng.int(3) === 0 ? rng.int(100_000) : 0),
      data,
      accessList,
    };
    // The access list's intrinsic gas comes on top (so a short-of-gas call stays short in execution, not invalid).
    for (const item of accessList) fields.gasLimit += 2_400n + 1_900n * BigInt(item.storageKeys.length);
    const txCommon = new Common({ chain: Mainnet, hardfork: HARDFORK, customCrypto: { kzg: createKzg() } });
    let tx: FeeMarket1559Tx | EOACode7702Tx;
    if (setCode) {
      // Points the authority at a random contract (or clears it), then calls it: its code runs as the authority's.
      const target = rng.int(5) === 0 ? new Uint8Array(20) : rng.pick(contracts);
      const auth = eoaCode7702SignAuthorization(
        { chainId: '0x1', address: toHexKey(target) as `0x${string}`, nonce: `0x${authorityNonce.toString(16)}` },
        AUTHORITY_KEY,
      );
      authorityNonce++;
      tx = createEOACode7702Tx(
        { ...fields, gasLimit: fields.gasLimit + 25_000n, authorizationList: [auth] },
        { common: txCommon },
      ).sign(SENDER_KEYS[s] as Uint8Array);
    } else tx = createFeeMarket1559Tx(fields, { common: txCommon }).sign(SENDER_KEYS[s] as Uint8Array);
    nonces[s] = (nonces[s] as bigint) + 1n;
    txs.push({ tx, sender: senders[s] as Uint8Array });
  }
  return { seed, pre, txs };
}

/** The `transfers` profile's extra accounts: an EIP-7702 delegation to contract 0, an existing empty account. */
const DELEGATED = fromHex('0x00000000000000000000000000000000de1e9a7e');
const EXISTING_EMPTY = fromHex('0x0000000000000000000000000000000000e3b7e1');
const TRANSFER_PRE: readonly PreAccount[] = [
  {
    address: DELEGATED,
    nonce: 1n,
    balance: 5n,
    code: new Uint8Array([0xef, 0x01, 0x00, ...contractAddress(0)]),
    storage: new Map(),
  },
  { address: EXISTING_EMPTY, nonce: 0n, balance: 0n, code: new Uint8Array(0), storage: new Map() },
];
/** Precompiles of Prague (0x01-0x11) and an address just past them. */
const PRECOMPILES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 17, 18, 0x100].map((i) =>
  fromHex(`0x${i.toString(16).padStart(40, '0')}`),
);

/**
 * A call with value 0 or some, calldata or none, an access list or none, to an existing or missing EOA, the sender
 * itself, the coinbase, a fresh address, a precompile, the delegated account, an existing empty account or a
 * contract; with barely more than the intrinsic gas a third of the time.
 */
function transferTx(rng: Rng, nonce: bigint, eoas: readonly Uint8Array[]): FeeMarket1559Tx {
  const kind = rng.int(6);
  const to =
    kind === 0
      ? rng.bytes(20)
      : kind === 1
        ? rng.pick(PRECOMPILES)
        : kind === 2
          ? rng.pick([DELEGATED, EXISTING_EMPTY, contractAddress(0)])
          : rng.pick(eoas);
  const data = rng.int(3) === 0 ? rng.bytes(rng.int(40)) : new Uint8Array(0);
  const accessList =
    rng.int(4) === 0
      ? [
          {
            address: toHexKey(rng.pick([to, contractAddress(1)])) as `0x${string}`,
            storageKeys: [toHexKey(new Uint8Array(32)) as `0x${string}`],
          },
        ]
      : [];
  let intrinsic = 21_000 + (accessList.length > 0 ? 2_400 + 1_900 : 0);
  for (const b of data) intrinsic += b === 0 ? 10 : 40; // at least the EIP-7623 calldata floor
  return createFeeMarket1559Tx(
    {
      chainId: 1n,
      nonce,
      maxFeePerGas: 100n,
      maxPriorityFeePerGas: BigInt(rng.int(3)),
      gasLimit: BigInt(intrinsic + (rng.int(3) === 0 ? rng.int(3_000) : 60_000 + rng.int(200_000))),
      to: new Address(to),
      value: rng.int(2) === 0 ? 0n : BigInt(1 + rng.int(1_000_000)),
      data,
      accessList,
    },
    { common: new Common({ chain: Mainnet, hardfork: HARDFORK, customCrypto: { kzg: createKzg() } }) },
  );
}

function logsKey(logs: ReadonlyArray<readonly [Uint8Array, Uint8Array[], Uint8Array]>): string {
  return toHexKey(keccak256(rlpEncode(logs.map(([a, t, d]) => [a, t, d]) as Parameters<typeof rlpEncode>[0])));
}

// --- the reference: @ethereumjs/vm as shipped

/** Throws when tern's patches are in this process: the reference would not be the shipped interpreter. */
async function assertUnpatched(): Promise<void> {
  const fns = await importEvmModule<{ handlers?: { ternFast?: true } }>('opcodes/functions.js');
  const interp = await importEvmModule<{ Interpreter?: { prototype: { ternJumpCache?: true } } }>('interpreter.js');
  if (fns.handlers?.ternFast === true || interp.Interpreter?.prototype.ternJumpCache === true) {
    throw new Error('the reference must run before tern patches @ethereumjs/evm in this process (or in another one)');
  }
}

/** Executes the case with @ethereumjs/vm as shipped. */
export async function runReference(c: DiffCase): Promise<Outcome> {
  await assertUnpatched();
  const common = new Common({ chain: Mainnet, hardfork: HARDFORK, customCrypto: { kzg: createKzg() } });
  const stateManager = new MerkleStateManager({ common });
  const vm = await createVM({ common, stateManager });
  for (const a of c.pre) {
    const addr = new Address(a.address);
    await stateManager.putAccount(addr, createAccount({ nonce: a.nonce, balance: a.balance }));
    if (a.code.length > 0) await stateManager.putCode(addr, a.code);
    for (const [slot, v] of a.storage) await stateManager.putStorage(addr, fromHex(slot), bigintToMinimalBytes(v));
  }
  const block = createBlock(
    {
      header: {
        number: NUMBER,
        timestamp: TIMESTAMP,
        coinbase: new Address(COINBASE),
        gasLimit: GAS_LIMIT,
        baseFeePerGas: BASE_FEE,
        mixHash: PREV_RANDAO,
        excessBlobGas: 0n,
        blobGasUsed: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
      },
    },
    { common },
  );
  const txs: Outcome['txs'] = [];
  for (const { tx } of c.txs) {
    const r = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true });
    txs.push({
      status: r.execResult.exceptionError === undefined ? 1 : 0,
      gasUsed: r.totalGasSpent,
      logs: logsKey(r.execResult.logs ?? []),
      returnValue: toHexKey(r.execResult.returnValue),
    });
  }
  return { txs, stateRoot: toHexKey(await stateManager.getStateRoot()) };
}

// --- tern

class PreReader implements StateReader {
  private readonly accounts = new Map<string, PreAccount & { storageRoot: Uint8Array; codeHash: Uint8Array }>();
  private readonly codes = new Map<string, Uint8Array>();
  constructor(pre: readonly PreAccount[]) {
    for (const a of pre) {
      const codeHash = a.code.length === 0 ? EMPTY_CODE_HASH : keccak256(a.code);
      if (a.code.length > 0) this.codes.set(toHexKey(codeHash), a.code);
      this.accounts.set(toHexKey(a.address), { ...a, codeHash, storageRoot: storageRoot(a.storage) });
    }
  }
  getAccount(address: Uint8Array): AccountRecord | undefined {
    const a = this.accounts.get(toHexKey(address));
    return a === undefined
      ? undefined
      : { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot };
  }
  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    return this.accounts.get(toHexKey(address))?.storage.get(toHexKey(slot)) ?? 0n;
  }
  getCode(codeHash: Uint8Array): Uint8Array {
    const code = this.codes.get(toHexKey(codeHash));
    if (code === undefined) throw new Error(`no code with hash ${toHexKey(codeHash)}`);
    return code;
  }
  /** The state root of the pre-state with `diff` applied. */
  rootWith(diff: StateDiff): string {
    const entries: TrieEntry[] = [];
    const leaf = (nonce: bigint, balance: bigint, root: Uint8Array, codeHash: Uint8Array) =>
      rlpEncode([nonce, balance, root, codeHash]);
    for (const [key, a] of this.accounts) {
      if (!diff.accounts.has(key)) entries.push([a.address, leaf(a.nonce, a.balance, a.storageRoot, a.codeHash)]);
    }
    for (const [key, d] of diff.accounts) {
      if (d === null) continue;
      const pre = this.accounts.get(key);
      const merged = new Map<string, bigint>(d.storageCleared || pre === undefined ? [] : pre.storage);
      for (const [slot, v] of d.storage) merged.set(slot, v);
      entries.push([fromHex(key), leaf(d.nonce, d.balance, storageRoot(merged), d.codeHash)]);
    }
    return toHexKey(secureTrieRoot(entries));
  }
}

function storageRoot(storage: ReadonlyMap<string, bigint>): Uint8Array {
  const entries: TrieEntry[] = [];
  for (const [slot, v] of storage) if (v !== 0n) entries.push([fromHex(slot), rlpEncode(bigintToMinimalBytes(v))]);
  return entries.length === 0 ? EMPTY_TRIE_ROOT : secureTrieRoot(entries);
}

/** Tern's side: one Common and executor per runner, reused for every case. */
export class TernRunner {
  private constructor(
    private readonly common: Common,
    private readonly state: FlatState,
    private readonly executor: Executor,
  ) {}

  static async create(): Promise<TernRunner> {
    const common = new Common({ chain: Mainnet, hardfork: HARDFORK, customCrypto: { kzg: createKzg() } });
    const state = new FlatState(new PreReader([]));
    return new TernRunner(common, state, await Executor.create({ common, state }));
  }

  async run(c: DiffCase): Promise<Outcome> {
    const pre = new PreReader(c.pre);
    this.state.reset(pre);
    const block = this.executor.startBlock(
      createBlockEnv({
        common: this.common,
        hardfork: HARDFORK,
        number: NUMBER,
        timestamp: TIMESTAMP,
        coinbase: new Address(COINBASE),
        gasLimit: GAS_LIMIT,
        baseFee: BASE_FEE,
        prevRandao: PREV_RANDAO,
        difficulty: 0n,
        excessBlobGas: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
      }),
    );
    const txs: Outcome['txs'] = [];
    for (const { tx, sender } of c.txs) {
      const r = await applyTransaction(block, tx, new Address(sender));
      txs.push({
        status: r.status,
        gasUsed: r.gasUsed,
        logs: logsKey(r.logs as Array<[Uint8Array, Uint8Array[], Uint8Array]>),
        returnValue: toHexKey(r.returnValue),
      });
    }
    return { txs, stateRoot: pre.rootWith(this.state.diff()) };
  }
}

/** A case where the two sides differ, with what differs. */
export interface Mismatch {
  readonly seed: number;
  readonly what: string;
}

export function compareOutcomes(seed: number, ref: Outcome, tern: Outcome): Mismatch | undefined {
  for (let i = 0; i < ref.txs.length; i++) {
    const a = ref.txs[i];
    const b = tern.txs[i];
    for (const k of ['status', 'gasUsed', 'logs', 'returnValue'] as const) {
      if (a?.[k] !== b?.[k]) return { seed, what: `tx ${i} ${k}: ethereumjs ${a?.[k]}, tern ${b?.[k]}` };
    }
  }
  if (ref.stateRoot !== tern.stateRoot)
    return { seed, what: `state root: ethereumjs ${ref.stateRoot}, tern ${tern.stateRoot}` };
  return undefined;
}

/**
 * Runs seeds [from, from + count): every reference case first (the shipped interpreter, before tern's patches go
 * in), then tern's. Returns the mismatches and, per side, how many transactions succeeded (a sanity figure: a
 * generator whose every transaction fails would prove little).
 */
export async function runDifferential(
  from: number,
  count: number,
  profile: CodeProfile = 'full',
): Promise<{ mismatches: Mismatch[]; txs: number; succeeded: number; logs: number }> {
  const cases = Array.from({ length: count }, (_, i) => generateCase(from + i, 4, profile));
  const refs: Outcome[] = [];
  for (const c of cases) refs.push(await runReference(c));
  const tern = await TernRunner.create();
  const mismatches: Mismatch[] = [];
  let txs = 0;
  let succeeded = 0;
  let logs = 0;
  const noLogs = logsKey([]);
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i] as DiffCase;
    const ref = refs[i] as Outcome;
    const out = await tern.run(c);
    const m = compareOutcomes(c.seed, ref, out);
    if (m !== undefined) mismatches.push(m);
    for (const t of ref.txs) {
      txs++;
      if (t.status === 1) succeeded++;
      if (t.logs !== noLogs) logs++;
    }
  }
  return { mismatches, txs, succeeded, logs };
}
