// Runs state tests (ethereum/tests GeneralStateTests post.Cancun, execution-spec-tests post.Prague) through tern's
// state transition, following geth's
// tests/state_test_util.go: build `pre`, decode the case's `txbytes`, apply it on a fresh flat state over the
// pre-state, touch the coinbase with a zero reward (EIP-158 removes it if it is empty), then compare the root of
// pre-state + diff with `hash` and keccak(rlp(logs)) with `logs`. Cases with `expectException` must be rejected
// and leave the state unchanged. Fixtures of an unknown shape throw (they fail, never skip).
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Address, KECCAK256_NULL } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { TernError } from '../../src/main/common/errors.js';
import { createBlockEnv } from '../../src/main/exec/evm/env.js';
import { applyTransaction, Executor } from '../../src/main/exec/evm/transition.js';
import { FlatState } from '../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateDiff, StateReader } from '../../src/main/exec/state/interface.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { bigintToMinimalBytes, fromHex, toHexKey } from '../../src/main/primitives/bytes.js';
import { DEFAULT_BLOB_SCHEDULE } from '../../src/main/primitives/chainConfig.js';
import { rlpEncode } from '../../src/main/primitives/rlp.js';
import { EMPTY_TRIE_ROOT, secureTrieRoot, type TrieEntry } from '../../src/main/primitives/trie/root.js';
import { createKzg } from '../../src/main/protocol/crypto/kzg.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

/** The networks a state test's `post` may list (a runner runs one of STATE_NETWORKS). */
const KNOWN_NETWORKS = new Set([
  'Frontier',
  'Homestead',
  'EIP150',
  'EIP158',
  'Byzantium',
  'Constantinople',
  'ConstantinopleFix',
  'Istanbul',
  'MuirGlacier',
  'Berlin',
  'London',
  'Merge',
  'Paris',
  'Shanghai',
  'Cancun',
  'Prague',
  'Osaka',
]);
/** The networks the runner can run, with the ethereumjs hardfork of each. */
export const STATE_NETWORKS = { Cancun: Hardfork.Cancun, Prague: Hardfork.Prague } as const;
export type StateNetwork = keyof typeof STATE_NETWORKS;
const TEST_KEYS = new Set(['_info', 'env', 'post', 'pre', 'transaction', 'config']);
const CONFIG_KEYS = new Set(['blobSchedule', 'chainid']);
const ENV_KEYS = new Set([
  'currentBaseFee',
  'currentCoinbase',
  'currentDifficulty',
  'currentExcessBlobGas',
  'currentGasLimit',
  'currentNumber',
  'currentRandom',
  'currentTimestamp',
  'currentBeaconRoot',
  'currentWithdrawalsRoot',
  'parentBeaconBlockRoot',
  'previousHash',
]);
const TX_KEYS = new Set([
  'data',
  'gasLimit',
  'gasPrice',
  'nonce',
  'secretKey',
  'sender',
  'to',
  'value',
  'accessLists',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'blobVersionedHashes',
  'maxFeePerBlobGas',
  'authorizationList',
]);
/** `state` (EEST: the full post-state) is checked through its root, `hash`. */
const POST_KEYS = new Set(['hash', 'indexes', 'logs', 'txbytes', 'expectException', 'state']);
const ACCOUNT_KEYS = new Set(['balance', 'code', 'nonce', 'storage']);

/** ethereum/tests exception name → the codes tern rejects such a transaction with. */
const EXCEPTION_CODES: Record<string, readonly string[]> = {
  'TransactionException.INTRINSIC_GAS_TOO_LOW': ['TR_IntrinsicGas'],
  'TransactionException.INSUFFICIENT_ACCOUNT_FUNDS': ['TR_NoFunds'],
  'TransactionException.INSUFFICIENT_MAX_FEE_PER_GAS': ['TR_FeeCapLessThanBlocksBaseFee'],
  'TransactionException.PRIORITY_GREATER_THAN_MAX_FEE_PER_GAS': ['TR_TipGtFeeCap', 'TX_DECODE'],
  'TransactionException.INITCODE_SIZE_EXCEEDED': ['TR_InitCodeLimitExceeded'],
  'TransactionException.GASLIMIT_PRICE_PRODUCT_OVERFLOW': ['TX_DECODE', 'TR_NoFunds'],
  'TransactionException.RLP_INVALID_VALUE': ['TX_DECODE'],
  'TransactionException.TYPE_3_TX_INVALID_BLOB_VERSIONED_HASH': ['TR_BLOBVERSION_INVALID', 'TX_DECODE'],
  'TransactionException.INSUFFICIENT_MAX_FEE_PER_BLOB_GAS': ['TR_BlobFeeCapTooLow'],
  'TransactionException.TYPE_3_TX_ZERO_BLOBS': ['TR_EMPTYBLOB', 'TX_DECODE'],
  'TransactionException.TYPE_3_TX_BLOB_COUNT_EXCEEDED': ['TR_BLOBLIST_OVERSIZE', 'TX_DECODE'],
  'TransactionException.TYPE_3_TX_CONTRACT_CREATION': ['TR_BLOBCREATE', 'TX_DECODE'],
  'TransactionException.SENDER_NOT_EOA': ['SenderNotEOA'],
  'TransactionException.NONCE_IS_MAX': ['TR_NonceHasMaxValue'],
  'TransactionException.GAS_ALLOWANCE_EXCEEDED': ['TR_GasLimitReached'],
  // EIP-7623's floor is part of the intrinsic-gas rule: tern gives both the same code.
  'TransactionException.INTRINSIC_GAS_BELOW_FLOOR_GAS_COST': ['TR_IntrinsicGas'],
  'TransactionException.TYPE_4_TX_CONTRACT_CREATION': ['TX_DECODE'],
  'TransactionException.TYPE_4_EMPTY_AUTHORIZATION_LIST': ['TR_EmptyAuthList', 'TX_DECODE'],
};

interface Secp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}
const secp = createRequire(import.meta.url)('secp256k1') as Secp256k1;

/** A fixture the runner does not understand. */
export class FixtureShapeError extends Error {}

type Json = Record<string, unknown>;

function shape(cond: unknown, where: string, what: string): asserts cond {
  if (!cond) throw new FixtureShapeError(`${where}: ${what}`);
}

function checkKeys(obj: unknown, allowed: Set<string>, where: string): asserts obj is Json {
  shape(typeof obj === 'object' && obj !== null && !Array.isArray(obj), where, 'expected an object');
  for (const k of Object.keys(obj)) shape(allowed.has(k), where, `unknown field ${JSON.stringify(k)}`);
}

function hexString(v: unknown, where: string): string {
  shape(typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v), where, `expected 0x-hex, got ${JSON.stringify(v)}`);
  return v;
}

function hexInt(v: unknown, where: string): bigint {
  const s = hexString(v, where);
  return s === '0x' ? 0n : BigInt(s);
}

function hexBytes(v: unknown, where: string): Uint8Array {
  return fromHex(hexString(v, where));
}

function pad32(hex: string): string {
  const digits = hex.slice(2).toLowerCase().replace(/^0+/, '');
  shape(digits.length <= 64, hex, 'storage key longer than 32 bytes');
  return `0x${digits.padStart(64, '0')}`;
}

/** One account of `pre`, with what the state root needs precomputed. */
interface PreAccount {
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  storage: Map<string, bigint>;
  storageRoot: Uint8Array;
  /** RLP of [nonce, balance, storageRoot, codeHash], its leaf in the account trie. */
  leaf: Uint8Array;
}

function accountLeaf(nonce: bigint, balance: bigint, storageRoot: Uint8Array, codeHash: Uint8Array): Uint8Array {
  return rlpEncode([nonce, balance, storageRoot, codeHash]);
}

function storageRootOf(storage: Map<string, bigint>): Uint8Array {
  const entries: TrieEntry[] = [];
  for (const [slot, value] of storage)
    if (value !== 0n) entries.push([fromHex(slot), rlpEncode(bigintToMinimalBytes(value))]);
  return entries.length === 0 ? EMPTY_TRIE_ROOT : secureTrieRoot(entries);
}

/** The pre-state as a StateReader: a map of accounts and a map of code by hash. */
export class MemoryStateReader implements StateReader {
  readonly accounts = new Map<string, PreAccount>();
  readonly codes = new Map<string, Uint8Array>();
  private preRoot: Uint8Array | undefined;

  constructor(pre: unknown, where: string) {
    shape(typeof pre === 'object' && pre !== null && !Array.isArray(pre), where, 'pre: expected an object');
    for (const [addr, raw] of Object.entries(pre as Json)) {
      const at = `${where} pre ${addr}`;
      checkKeys(raw, ACCOUNT_KEYS, at);
      shape(/^0x[0-9a-fA-F]{40}$/.test(addr), at, 'bad address');
      const code = hexBytes(raw.code, `${at} code`);
      const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code);
      if (code.length > 0) this.codes.set(toHexKey(codeHash), code);
      const storage = new Map<string, bigint>();
      checkKeys(raw.storage, new Set(Object.keys(raw.storage as Json)), `${at} storage`);
      for (const [slot, value] of Object.entries(raw.storage as Json)) {
        const v = hexInt(value, `${at} storage ${slot}`);
        if (v !== 0n) storage.set(pad32(hexString(slot, `${at} storage key`)), v);
      }
      const nonce = hexInt(raw.nonce, `${at} nonce`);
      const balance = hexInt(raw.balance, `${at} balance`);
      const storageRoot = storageRootOf(storage);
      this.accounts.set(addr.toLowerCase(), {
        address: fromHex(addr),
        nonce,
        balance,
        code,
        codeHash,
        storage,
        storageRoot,
        leaf: accountLeaf(nonce, balance, storageRoot, codeHash),
      });
    }
  }

  getAccount(address: Uint8Array): AccountRecord | undefined {
    const a = this.accounts.get(toHexKey(address));
    if (a === undefined) return undefined;
    return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot };
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    return this.accounts.get(toHexKey(address))?.storage.get(toHexKey(slot)) ?? 0n;
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    const code = this.codes.get(toHexKey(codeHash));
    if (code === undefined) throw new Error(`no code with hash ${toHexKey(codeHash)}`);
    return code;
  }

  /** Root of the pre-state. */
  root(): Uint8Array {
    this.preRoot ??= secureTrieRoot([...this.accounts.values()].map((a) => [a.address, a.leaf] as TrieEntry));
    return this.preRoot;
  }

  /** Root of the pre-state with the diff applied. */
  rootWith(diff: StateDiff): Uint8Array {
    const entries: TrieEntry[] = [];
    for (const [key, a] of this.accounts) if (!diff.accounts.has(key)) entries.push([a.address, a.leaf]);
    for (const [key, d] of diff.accounts) {
      if (d === null) continue;
      const pre = this.accounts.get(key);
      let storageRoot: Uint8Array;
      if (!d.storageCleared && d.storage.size === 0) storageRoot = pre?.storageRoot ?? EMPTY_TRIE_ROOT;
      else {
        const merged = new Map<string, bigint>(d.storageCleared || pre === undefined ? [] : pre.storage);
        for (const [slot, v] of d.storage) merged.set(slot, v);
        storageRoot = storageRootOf(merged);
      }
      entries.push([fromHex(key), accountLeaf(d.nonce, d.balance, storageRoot, d.codeHash)]);
    }
    return secureTrieRoot(entries);
  }
}

/** The outcome of one post.<network> case. */
export interface CaseOutcome {
  /** file (relative to the fixture root) / test name / network and index, with the data/gas/value indexes. */
  id: string;
  ok: boolean;
  /** Why it failed: expected vs got. */
  reason?: string;
  /** An expected rejection that happened, but with a code not mapped to the expected exception. */
  otherReason?: string;
  /** Not run: a heavy case outside the default run (counts as not passed). */
  skipped?: string;
  ms: number;
  /** Gas the transaction used, when it was applied. */
  gas?: bigint;
}

/** Shared machinery: one Common, one flat state and one executor, reused for every case of one network. */
export class StateTestRunner {
  private constructor(
    readonly network: StateNetwork,
    private readonly common: Common,
    private readonly state: FlatState,
    private readonly executor: Executor,
  ) {}

  static async create(network: StateNetwork = 'Cancun'): Promise<StateTestRunner> {
    const hardfork = STATE_NETWORKS[network];
    const common = new Common({ chain: Mainnet, hardfork, customCrypto: { kzg: createKzg() } });
    const state = new FlatState(new MemoryStateReader({}, 'empty'));
    const executor = await Executor.create({ common, state });
    return new StateTestRunner(network, common, state, executor);
  }

  /**
   * Runs every post.<network> case of one fixture file. Throws FixtureShapeError on a fixture it cannot read. With
   * `skip` set, the file is read and checked but its cases are not executed: each comes back not ok, skipped.
   */
  async runFile(path: string, root: string, skip?: string): Promise<CaseOutcome[]> {
    const file = relative(root, path);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new FixtureShapeError(`${file}: not JSON (${(err as Error).message})`);
    }
    shape(typeof json === 'object' && json !== null && !Array.isArray(json), file, 'expected an object of tests');
    const outcomes: CaseOutcome[] = [];
    for (const [name, test] of Object.entries(json as Json)) {
      const where = `${file} ${name}`;
      checkKeys(test, TEST_KEYS, where);
      checkKeys(test.env, ENV_KEYS, `${where} env`);
      checkKeys(test.transaction, TX_KEYS, `${where} transaction`);
      checkKeys(test.post, KNOWN_NETWORKS, `${where} post`);
      const net = this.network;
      const cases = (test.post as Json)[net];
      if (cases === undefined) continue;
      shape(Array.isArray(cases), where, `post.${net}: expected a list`);
      if (test.config !== undefined) checkConfig(test.config, net, where);
      const pre = new MemoryStateReader(test.pre, where);
      for (let i = 0; i < cases.length; i++) {
        const post: unknown = cases[i];
        checkKeys(post, POST_KEYS, `${where} post.${net}[${i}]`);
        if (skip !== undefined) {
          outcomes.push({ id: `${where} ${net}[${i}]`, ok: false, skipped: skip, ms: 0 });
          continue;
        }
        const started = performance.now();
        const outcome = await this.runCase(where, i, test, post, pre);
        outcome.ms = performance.now() - started;
        outcomes.push(outcome);
      }
    }
    return outcomes;
  }

  private async runCase(
    where: string,
    index: number,
    test: Json,
    post: Json,
    pre: MemoryStateReader,
  ): Promise<CaseOutcome> {
    const ix = post.indexes as Json;
    checkKeys(ix, new Set(['data', 'gas', 'value']), `${where} indexes`);
    const id = `${where} ${this.network}[${index}] (d${ix.data} g${ix.gas} v${ix.value})`;
    const fail = (reason: string): CaseOutcome => ({ id, ok: false, reason, ms: 0 });
    const expected = post.expectException === undefined ? undefined : String(post.expectException);
    const env = test.env as Json;
    const txJson = test.transaction as Json;

    // The transaction: decoded from txbytes, checked against the fields `indexes` picks from `transaction`.
    let tx: TypedTransaction | undefined;
    let decodeError: string | undefined;
    try {
      tx = createTxFromRLP(hexBytes(post.txbytes, `${id} txbytes`), { common: this.common });
    } catch (err) {
      if (err instanceof FixtureShapeError) throw err;
      decodeError = (err as Error).message;
    }
    let sender: Address | undefined;
    if (tx !== undefined) {
      const mismatch = checkPick(tx, txJson, ix, id);
      if (mismatch !== undefined) return fail(`txbytes disagree with transaction fields: ${mismatch}`);
      const recovered = recoverSender(tx);
      const declared = hexString(txJson.sender, `${id} sender`).toLowerCase();
      if (recovered === undefined) decodeError = 'invalid signature';
      else if (recovered !== declared) return fail(`sender: expected ${declared}, recovered ${recovered}`);
      else sender = new Address(fromHex(declared));
    }

    const preRoot = pre.root();
    this.state.reset(pre);
    const block = this.executor.startBlock(
      createBlockEnv({
        common: this.common,
        hardfork: STATE_NETWORKS[this.network],
        number: hexInt(env.currentNumber, `${id} currentNumber`),
        timestamp: hexInt(env.currentTimestamp, `${id} currentTimestamp`),
        coinbase: new Address(hexBytes(env.currentCoinbase, `${id} currentCoinbase`)),
        gasLimit: hexInt(env.currentGasLimit, `${id} currentGasLimit`),
        // Retesteth's default: parent base fee 0x10 gives 0x0a for this block (geth's runner does the same).
        baseFee: env.currentBaseFee === undefined ? 10n : hexInt(env.currentBaseFee, `${id} currentBaseFee`),
        prevRandao:
          env.currentRandom === undefined
            ? fromHex(pad32(hexString(env.currentDifficulty, `${id} currentDifficulty`)))
            : fromHex(pad32(hexString(env.currentRandom, `${id} currentRandom`))),
        difficulty: hexInt(env.currentDifficulty, `${id} currentDifficulty`),
        excessBlobGas:
          env.currentExcessBlobGas === undefined ? 0n : hexInt(env.currentExcessBlobGas, `${id} currentExcessBlobGas`),
        getBlockHash: (n) => keccak256(new TextEncoder().encode(n.toString())),
      }),
    );

    let logs: unknown[] = [];
    let gas: bigint | undefined;
    let rejected: string | undefined;
    if (tx === undefined || sender === undefined) {
      rejected = `TX_DECODE: ${decodeError}`;
    } else {
      try {
        const result = await applyTransaction(block, tx, sender);
        logs = result.logs;
        gas = result.gasUsed;
      } catch (err) {
        if (!(err instanceof TernError) || err.code.startsWith('STATE_') || err.code === 'INTERNAL') {
          return fail(`internal error: ${(err as Error).stack ?? String(err)}`);
        }
        rejected = `${err.code}: ${err.message}`;
      }
    }

    if (rejected !== undefined) {
      if (expected === undefined) return fail(`unexpected rejection: ${rejected}`);
      const diff = this.state.diff();
      if (diff.accounts.size > 0) return fail(`rejected (${rejected}) but the state changed`);
      const root = toHexKey(preRoot);
      if (root !== String(post.hash).toLowerCase())
        return fail(`rejected; pre-state root ${root} != expected ${post.hash}`);
      const code = rejected.slice(0, rejected.indexOf(':'));
      const accepted = expected.split('|').flatMap((e) => EXCEPTION_CODES[e] ?? []);
      if (accepted.length === 0) throw new FixtureShapeError(`${id}: unknown exception ${expected}`);
      if (!accepted.includes(code))
        return { id, ok: true, otherReason: `expected ${expected}, rejected with ${rejected}`, ms: 0 };
      return { id, ok: true, ms: 0 };
    }
    if (expected !== undefined) return fail(`expected exception ${expected}, but the transaction was accepted`);

    // geth: a zero reward to the coinbase after the transaction, then EIP-158 removes it if it is empty.
    const coinbase = block.env.coinbase;
    if (this.state.exists(coinbase) && this.state.isEmpty(coinbase)) this.state.removeAccount(coinbase);

    const diff = this.state.diff();
    const root = toHexKey(pre.rootWith(diff));
    const logsHash = toHexKey(keccak256(rlpEncode(logs as Parameters<typeof rlpEncode>[0])));
    const problems: string[] = [];
    if (root !== String(post.hash).toLowerCase()) problems.push(`state root: expected ${post.hash}, got ${root}`);
    if (logsHash !== String(post.logs).toLowerCase())
      problems.push(`logs hash: expected ${post.logs}, got ${logsHash}`);
    if (problems.length > 0) return { ...fail(`${problems.join('; ')}\n      ${describeDiff(diff, pre)}`), gas };
    return { id, ok: true, ms: 0, gas };
  }
}

/**
 * An EEST `config`: the runner's chain (id 1, mainnet's blob parameters) must be the one the fixture was filled
 * for, or the fixture is of a shape it cannot run.
 */
function checkConfig(config: unknown, network: StateNetwork, where: string): void {
  checkKeys(config, CONFIG_KEYS, `${where} config`);
  shape(hexInt(config.chainid, `${where} config chainid`) === 1n, where, 'config chainid: only chain id 1 is run');
  const schedule = config.blobSchedule;
  if (schedule === undefined) return;
  checkKeys(schedule, KNOWN_NETWORKS, `${where} config blobSchedule`);
  const forks: StateNetwork[] = network === 'Prague' ? ['Cancun', 'Prague'] : ['Cancun'];
  for (const fork of forks) {
    const p = schedule[fork];
    if (p === undefined) continue;
    const at = `${where} config blobSchedule ${fork}`;
    checkKeys(p, new Set(['baseFeeUpdateFraction', 'max', 'target']), at);
    const want = DEFAULT_BLOB_SCHEDULE[fork.toLowerCase()];
    shape(
      want !== undefined &&
        hexInt(p.target, at) === BigInt(want.target) &&
        hexInt(p.max, at) === BigInt(want.max) &&
        hexInt(p.baseFeeUpdateFraction, at) === want.baseFeeUpdateFraction,
      at,
      `blob parameters other than mainnet's (${JSON.stringify(p)})`,
    );
  }
}

/** The changed accounts, to help read a root mismatch. */
function describeDiff(diff: StateDiff, pre: MemoryStateReader): string {
  const parts: string[] = [];
  for (const [key, d] of diff.accounts) {
    if (d === null) {
      parts.push(`${key}: deleted`);
      continue;
    }
    const p = pre.accounts.get(key);
    const fields: string[] = [];
    if (p === undefined) fields.push('new');
    if (p?.nonce !== d.nonce) fields.push(`nonce ${d.nonce}`);
    if (p?.balance !== d.balance) fields.push(`balance ${d.balance}`);
    if (p === undefined || toHexKey(p.codeHash) !== toHexKey(d.codeHash)) fields.push(`code ${toHexKey(d.codeHash)}`);
    if (d.storageCleared) fields.push('storage cleared');
    for (const [slot, v] of d.storage) if (p?.storage.get(slot) !== v) fields.push(`[${slot}]=${v}`);
    parts.push(`${key}: ${fields.join(' ')}`);
  }
  return `diff: ${parts.join('; ')}`;
}

/** Checks the decoded transaction against the fields `indexes` selects from the test's `transaction`. */
function checkPick(tx: TypedTransaction, t: Json, ix: Json, id: string): string | undefined {
  const pick = (field: string, i: unknown): unknown => {
    const list = t[field];
    shape(Array.isArray(list) && typeof i === 'number' && i < list.length, id, `${field}[${String(i)}] out of range`);
    return list[i];
  };
  const want = {
    nonce: hexInt(t.nonce, `${id} nonce`),
    gasLimit: hexInt(pick('gasLimit', ix.gas), `${id} gasLimit`),
    value: hexInt(pick('value', ix.value), `${id} value`),
    data: hexString(pick('data', ix.data), `${id} data`).toLowerCase(),
    to: t.to === '' ? undefined : hexString(t.to, `${id} to`).toLowerCase(),
  };
  const got = {
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    value: tx.value,
    data: toHexKey(tx.data),
    to: tx.to?.toString(),
  };
  for (const k of Object.keys(want) as (keyof typeof want)[]) {
    if (want[k] !== got[k]) return `${k}: fields say ${String(want[k])}, txbytes say ${String(got[k])}`;
  }
  if ('maxFeePerGas' in tx && t.maxFeePerGas !== undefined) {
    if (tx.maxFeePerGas !== hexInt(t.maxFeePerGas, id)) return 'maxFeePerGas';
    if (tx.maxPriorityFeePerGas !== hexInt(t.maxPriorityFeePerGas, id)) return 'maxPriorityFeePerGas';
  }
  if ('gasPrice' in tx && t.gasPrice !== undefined && tx.gasPrice !== hexInt(t.gasPrice, id)) return 'gasPrice';
  if ('accessList' in tx && Array.isArray(t.accessLists)) {
    const al = t.accessLists[ix.data as number] as { address: string; storageKeys: string[] }[] | null;
    const wantAl = (al ?? []).map(
      (e) => `${e.address.toLowerCase()}:${e.storageKeys.map((k) => k.toLowerCase()).join(',')}`,
    );
    const gotAl = tx.accessList.map(([a, keys]) => `${toHexKey(a)}:${keys.map((k) => toHexKey(k)).join(',')}`);
    if (wantAl.join(';') !== gotAl.join(';')) return 'accessList';
  }
  if ('blobVersionedHashes' in tx && Array.isArray(t.blobVersionedHashes)) {
    const wantB = (t.blobVersionedHashes as string[]).map((h) => h.toLowerCase()).join(',');
    if (wantB !== tx.blobVersionedHashes.join(',')) return 'blobVersionedHashes';
    if (tx.maxFeePerBlobGas !== hexInt(t.maxFeePerBlobGas, id)) return 'maxFeePerBlobGas';
  }
  return undefined;
}

/** The signer of a decoded transaction (native secp256k1), lowercase hex; undefined if none recovers. */
function recoverSender(tx: TypedTransaction): string | undefined {
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) return undefined;
  let recid: number;
  if (tx.type === 0) {
    if (v === 27n || v === 28n) recid = Number(v - 27n);
    else recid = Number((v - 35n) % 2n);
  } else recid = Number(v);
  if (recid !== 0 && recid !== 1) return undefined;
  const sig = new Uint8Array(64);
  sig.set(fromHex(r.toString(16).padStart(64, '0')), 0);
  sig.set(fromHex(s.toString(16).padStart(64, '0')), 32);
  try {
    const pub = secp.ecdsaRecover(sig, recid, tx.getMessageToVerifySignature(), false);
    return toHexKey(keccak256(pub.subarray(1)).subarray(12));
  } catch {
    return undefined;
  }
}

/** Every .json fixture under `dir`, sorted. */
export function listFixtures(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The vitest suite, split into shards (one test file each) so that vitest runs them on separate cores.

/** Where the fixtures live. */
export const STATE_TESTS_DIR = join(FIXTURES, 'ethereum-tests', 'GeneralStateTests');
/** The suite's bar: passed cases over all post.Cancun cases (heavy cases not run count as not passed). */
export const MIN_PASS_RATE = 0.995;

/**
 * Cases so heavy that the default run leaves them out (STATE_TESTS_HEAVY=1 runs them too); geth's own runner
 * never loads them (tests/state_test.go: skipLoad `^stTimeConsuming/`, `.*vmPerformance/loop.*`). All pass.
 */
export const HEAVY: ReadonlyMap<string, string> = new Map([
  ['stTimeConsuming/CALLBlake2f_MaxRounds.json', 'BLAKE2 F with 2^32-1 rounds (~36 min in JS)'],
  ['VMTests/vmPerformance/loopMul.json', '9.2 Ggas of MUL loops (~8 min)'],
  ['VMTests/vmPerformance/loopExp.json', '1.2 Ggas of EXP loops (~40 s)'],
]);

/**
 * Seconds per folder on a 2-core CI machine where it is more than a second or two, to balance the shards
 * (greedy: heaviest folder first, onto the lighter shard). Other folders count 1.
 */
const FOLDER_SECONDS: Record<string, number> = {
  stQuadraticComplexityTest: 80,
  stTimeConsuming: 65,
  stStaticCall: 60,
  stBadOpcode: 20,
  'Pyspecs/cancun/eip1153_tstore': 9,
  stPreCompiledContracts2: 9,
  stAttackTest: 8,
  'Cancun/stEIP1153-transientStorage': 5,
  stZeroKnowledge: 3,
};

/** Fixture files by folder (relative to STATE_TESTS_DIR), for shard `shard` of `shards` (1-based). */
export function shardFolders(shard: number, shards: number, filter?: string): Map<string, string[]> {
  const byFolder = new Map<string, string[]>();
  for (const f of listFixtures(STATE_TESTS_DIR)) {
    if (filter !== undefined && !f.includes(filter)) continue;
    const folder = relative(STATE_TESTS_DIR, f).split(sep).slice(0, -1).join('/');
    const list = byFolder.get(folder) ?? [];
    list.push(f);
    byFolder.set(folder, list);
  }
  const weight = (folder: string) => FOLDER_SECONDS[folder] ?? 1;
  const order = [...byFolder.keys()].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  const load = new Array<number>(shards).fill(0);
  const mine = new Set<string>();
  for (const folder of order) {
    const lightest = load.indexOf(Math.min(...load));
    load[lightest] = (load[lightest] as number) + weight(folder);
    if (lightest === shard - 1) mine.add(folder);
  }
  return new Map([...byFolder].filter(([folder]) => mine.has(folder)).sort(([a], [b]) => a.localeCompare(b)));
}

/** The report of a run: the summary line, every failure with its reason, the skipped heavy cases, the slowest. */
export function report(label: string, outcomes: CaseOutcome[], files: number, seconds: number): string {
  const skipped = outcomes.filter((o) => o.skipped !== undefined);
  const failed = outcomes.filter((o) => !o.ok && o.skipped === undefined);
  const other = outcomes.filter((o) => o.ok && o.otherReason !== undefined);
  const passed = outcomes.length - failed.length - skipped.length;
  const rate = (100 * passed) / Math.max(1, outcomes.length);
  const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10);
  const skippedFiles = new Map<string, number>();
  for (const o of skipped) {
    const key = `${o.id.slice(0, o.id.indexOf(' '))}: ${o.skipped}`;
    skippedFiles.set(key, (skippedFiles.get(key) ?? 0) + 1);
  }
  const lines = [
    `${label}: ${passed}/${outcomes.length} passed (${rate.toFixed(3)} %), ${failed.length} failed, ${skipped.length} heavy not run, ${files} files, ${seconds.toFixed(1)} s`,
    ...failed.map((o) => `FAIL ${o.id}\n      ${o.reason}`),
    ...[...skippedFiles].map(([what, n]) => `  not run (${n} cases, STATE_TESTS_HEAVY=1 runs them): ${what}`),
    ...(other.length > 0 ? [`${other.length} expected rejections with another code:`] : []),
    ...other.map((o) => `  note ${o.id}: ${o.otherReason}`),
    'slowest cases:',
    ...slowest.map((o) => `  ${o.ms.toFixed(0)} ms${o.gas === undefined ? '' : ` ${o.gas} gas`} ${o.id}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Defines shard `shard` of `shards` of the GeneralStateTests suite: one `it` per folder (a failing case does not
 * fail it, a fixture of an unknown shape does), then one `it` that prints the report and checks the pass rate.
 * STATE_TESTS=<substring> limits the run to fixture paths containing it (debugging); STATE_TESTS_PROGRESS=<file>
 * appends each folder's result to that file as it finishes; STATE_TESTS_HEAVY=1 also runs the HEAVY cases.
 */
export function defineGeneralStateTests(shard: number, shards: number): void {
  const filter = process.env.STATE_TESTS;
  const progress = process.env.STATE_TESTS_PROGRESS;
  const heavy = process.env.STATE_TESTS_HEAVY === '1';
  const folders = shardFolders(shard, shards, filter);
  const files = [...folders.values()].reduce((n, l) => n + l.length, 0);
  const outcomes: CaseOutcome[] = [];
  const shapeErrors: string[] = [];
  let runner: StateTestRunner;
  const started = performance.now();
  const label = `GeneralStateTests post.Cancun, shard ${shard}/${shards}`;

  describe(label, () => {
    beforeAll(async () => {
      runner = await StateTestRunner.create();
    });

    it('has fixtures', () => {
      expect(files).toBeGreaterThan(filter === undefined ? 100 : 0);
    });

    for (const [folder, list] of folders) {
      it(folder, { timeout: 3_600_000 }, async () => {
        const errors: string[] = [];
        const t0 = performance.now();
        const before = outcomes.length;
        for (const file of list) {
          const rel = relative(STATE_TESTS_DIR, file).split(sep).join('/');
          const skip = heavy ? undefined : HEAVY.get(rel);
          try {
            outcomes.push(...(await runner.runFile(file, STATE_TESTS_DIR, skip)));
          } catch (err) {
            errors.push(`${rel}: ${(err as Error).message}`);
          }
        }
        shapeErrors.push(...errors);
        const mine = outcomes.slice(before);
        const good = mine.filter((o) => o.ok).length;
        const took = ((performance.now() - t0) / 1000).toFixed(1);
        if (progress !== undefined) appendFileSync(progress, `  ${folder}: ${good}/${mine.length} in ${took} s\n`);
        expect(errors, 'fixtures of an unknown shape').toEqual([]);
      });
    }

    it(`passes at least ${MIN_PASS_RATE * 100} % of the cases`, () => {
      const text = report(label, outcomes, files, (performance.now() - started) / 1000);
      process.stdout.write(text);
      if (filter === undefined) {
        mkdirSync(join(ROOT, 'test-results'), { recursive: true });
        writeFileSync(join(ROOT, 'test-results', `generalStateTests.${shard}.txt`), text);
      }
      expect(shapeErrors).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(0);
      const passed = outcomes.filter((o) => o.ok).length;
      expect(passed / outcomes.length).toBeGreaterThanOrEqual(MIN_PASS_RATE);
    });
  });
}

/** One network's cases of a folder of execution-spec-tests state fixtures (each subfolder an EIP). */
export interface EestStateSuite {
  label: string;
  dir: string;
  network: StateNetwork;
  /** How many fixture files and post.<network> cases the folder holds: a changed fixture set fails loudly. */
  files: number;
  cases: number;
  /** Report name under test-results/ (without .txt). */
  report: string;
}

/**
 * Defines a suite over EEST state fixtures: one `it` per folder (a fixture of an unknown shape fails it), then one
 * `it` that prints the report and requires every case to pass, each rejection for the rule the fixture names.
 * STATE_TESTS=<substring> narrows a local run.
 */
export function defineEestStateTests(s: EestStateSuite): void {
  const filter = process.env.STATE_TESTS;
  const byFolder = new Map<string, string[]>();
  for (const f of listFixtures(s.dir)) {
    if (filter !== undefined && !f.includes(filter)) continue;
    const folder = relative(s.dir, f).split(sep).slice(0, -1).join('/');
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), f]);
  }
  const files = [...byFolder.values()].reduce((n, l) => n + l.length, 0);
  const outcomes: CaseOutcome[] = [];
  const shapeErrors: string[] = [];
  let runner: StateTestRunner;
  const started = performance.now();

  describe(s.label, () => {
    beforeAll(async () => {
      runner = await StateTestRunner.create(s.network);
    });

    it('finds the fixtures', () => {
      if (filter === undefined) expect(files).toBe(s.files);
      else expect(files).toBeGreaterThan(0);
    });

    for (const [folder, list] of byFolder) {
      it(folder, { timeout: 3_600_000 }, async () => {
        const errors: string[] = [];
        for (const file of list) {
          try {
            outcomes.push(...(await runner.runFile(file, s.dir)));
          } catch (err) {
            errors.push(`${relative(s.dir, file)}: ${(err as Error).message}`);
          }
        }
        shapeErrors.push(...errors);
        expect(errors, 'fixtures of an unknown shape').toEqual([]);
      });
    }

    it('passes every case', () => {
      const text = report(s.label, outcomes, files, (performance.now() - started) / 1000);
      process.stdout.write(text);
      if (filter === undefined) {
        mkdirSync(join(ROOT, 'test-results'), { recursive: true });
        writeFileSync(join(ROOT, 'test-results', `${s.report}.txt`), text);
        expect(outcomes.length).toBe(s.cases);
      }
      expect(shapeErrors).toEqual([]);
      expect(outcomes.filter((o) => !o.ok).map((o) => `${o.id}: ${o.reason}`)).toEqual([]);
      // A rejection must also name the fixture's rule, not another one.
      expect(outcomes.filter((o) => o.otherReason !== undefined).map((o) => `${o.id}: ${o.otherReason}`)).toEqual([]);
    });
  });
}
