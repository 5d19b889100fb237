// Genesis in geth's genesis.json format: parsing (every field checked, errors name the field), the genesis
// state root, and the genesis header with the fork-dependent fields geth gives it, so the genesis hash equals
// geth's (and op-geth's) for the same file.
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { EMPTY_REQUESTS_HASH, EMPTY_UNCLE_HASH, type Header } from '../../primitives/block/header.js';
import {
  type ChainConfig,
  isBlockForkActive,
  isTimeForkActive,
  parseChainConfig,
} from '../../primitives/chainConfig.js';
import { bigintToBytes, rlpEncode } from '../../primitives/rlp.js';
import { EMPTY_TRIE_ROOT, secureTrieRoot } from '../../primitives/trie/root.js';
import { EMPTY_CODE_HASH } from '../state/stateStore.js';

export interface GenesisAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** Slot (0x-prefixed, 32 bytes, lower case) → value; zero values are dropped, as geth's state does. */
  storage: Map<string, bigint>;
}

export interface Genesis {
  config: ChainConfig;
  nonce: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  gasLimit: bigint;
  difficulty: bigint | undefined;
  mixHash: Uint8Array;
  coinbase: Uint8Array;
  number: bigint;
  gasUsed: bigint;
  parentHash: Uint8Array;
  baseFeePerGas: bigint | undefined;
  excessBlobGas: bigint | undefined;
  blobGasUsed: bigint | undefined;
  /** Address (0x-prefixed, lower case) → account. */
  alloc: Map<string, GenesisAccount>;
}

/** geth's defaults for a genesis that leaves them out. */
export const GENESIS_GAS_LIMIT = 5000n;
export const GENESIS_DIFFICULTY = 131072n;
export const INITIAL_BASE_FEE = 1_000_000_000n;
/** The OP-Stack predeploy whose storage root is the withdrawals root from Isthmus on. */
export const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';

function fail(what: string, v: unknown): never {
  throw new TernError('GENESIS_INVALID', `genesis: ${what} is invalid (${JSON.stringify(v)?.slice(0, 80)})`);
}

function num(v: unknown, what: string, dflt?: bigint): bigint {
  if (v === undefined || v === null) {
    if (dflt === undefined) fail(what, v);
    return dflt;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]*|\d+)$/.test(v)) return v === '0x' ? 0n : BigInt(v);
  return fail(what, v);
}

function optNum(v: unknown, what: string): bigint | undefined {
  return v === undefined || v === null ? undefined : num(v, what);
}

function bytes(v: unknown, what: string, len?: number): Uint8Array {
  if (v === undefined || v === null) return new Uint8Array(len ?? 0);
  if (typeof v !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v)) return fail(what, v);
  const out = Uint8Array.from(Buffer.from(v.replace(/^0x/, ''), 'hex'));
  if (len !== undefined && out.length !== len) return fail(`${what} (${len} bytes expected)`, v);
  return out;
}

/** 0x-prefixed lower-case hex of a 20-byte address key, which geth accepts with or without 0x. */
function addressKey(k: string): string {
  const h = k.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{40}$/.test(h)) fail('alloc address', k);
  return `0x${h}`;
}

function slotKey(k: string, what: string): string {
  const h = k.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{1,64}$/.test(h)) fail(what, k);
  return `0x${h.padStart(64, '0')}`;
}

export function parseGenesis(json: unknown, opts: { config?: ChainConfig } = {}): Genesis {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('document', json);
  const g = json as Record<string, unknown>;
  const config = opts.config ?? parseChainConfig(g.config);
  const alloc = new Map<string, GenesisAccount>();
  const rawAlloc = (g.alloc ?? {}) as Record<string, Record<string, unknown>>;
  if (typeof rawAlloc !== 'object' || Array.isArray(rawAlloc)) fail('alloc', rawAlloc);
  for (const [k, a] of Object.entries(rawAlloc)) {
    const addr = addressKey(k);
    const storage = new Map<string, bigint>();
    for (const [slot, value] of Object.entries((a.storage ?? {}) as Record<string, unknown>)) {
      const v = num(value, `alloc ${addr} storage ${slot}`);
      if (v !== 0n) storage.set(slotKey(slot, `alloc ${addr} storage slot`), v);
    }
    alloc.set(addr, {
      balance: num(a.balance, `alloc ${addr} balance`, 0n),
      nonce: num(a.nonce, `alloc ${addr} nonce`, 0n),
      code: bytes(a.code, `alloc ${addr} code`),
      storage,
    });
  }
  return {
    config,
    nonce: num(g.nonce, 'nonce', 0n),
    timestamp: num(g.timestamp, 'timestamp', 0n),
    extraData: bytes(g.extraData, 'extraData'),
    gasLimit: num(g.gasLimit, 'gasLimit', 0n),
    difficulty: optNum(g.difficulty, 'difficulty'),
    mixHash: bytes(g.mixHash, 'mixHash', 32),
    coinbase: bytes(g.coinbase, 'coinbase', 20),
    number: num(g.number, 'number', 0n),
    gasUsed: num(g.gasUsed, 'gasUsed', 0n),
    parentHash: bytes(g.parentHash, 'parentHash', 32),
    baseFeePerGas: optNum(g.baseFeePerGas, 'baseFeePerGas'),
    excessBlobGas: optNum(g.excessBlobGas, 'excessBlobGas'),
    blobGasUsed: optNum(g.blobGasUsed, 'blobGasUsed'),
    alloc,
  };
}

/** RLP of a storage value as the storage trie holds it. */
export function storageValueRlp(v: bigint): Uint8Array {
  return rlpEncode(bigintToBytes(v));
}

export function storageRoot(storage: ReadonlyMap<string, bigint>): Uint8Array {
  if (storage.size === 0) return EMPTY_TRIE_ROOT;
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [slot, v] of storage) entries.push([Buffer.from(slot.slice(2), 'hex'), storageValueRlp(v)]);
  return secureTrieRoot(entries);
}

export function accountRlp(nonce: bigint, balance: bigint, root: Uint8Array, codeHash: Uint8Array): Uint8Array {
  return rlpEncode([bigintToBytes(nonce), bigintToBytes(balance), root, codeHash]);
}

export function genesisStateRoot(alloc: ReadonlyMap<string, GenesisAccount>): Uint8Array {
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [addr, a] of alloc) {
    const codeHash = a.code.length === 0 ? EMPTY_CODE_HASH : keccak256(a.code);
    entries.push([Buffer.from(addr.slice(2), 'hex'), accountRlp(a.nonce, a.balance, storageRoot(a.storage), codeHash)]);
  }
  return secureTrieRoot(entries);
}

/** The genesis block's header, with the fields each fork active at genesis adds (geth's Genesis.ToBlock). */
export function genesisHeader(g: Genesis, stateRoot: Uint8Array = genesisStateRoot(g.alloc)): Header {
  const c = g.config;
  const zero32 = new Uint8Array(32);
  const nonce = new Uint8Array(8);
  new DataView(nonce.buffer).setBigUint64(0, g.nonce);
  const mixIsZero = g.mixHash.every((b) => b === 0);
  const h: Header = {
    parentHash: g.parentHash,
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: g.coinbase,
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: g.difficulty ?? (mixIsZero ? GENESIS_DIFFICULTY : 0n),
    number: g.number,
    gasLimit: g.gasLimit === 0n ? GENESIS_GAS_LIMIT : g.gasLimit,
    gasUsed: g.gasUsed,
    timestamp: g.timestamp,
    extraData: g.extraData,
    mixHash: g.mixHash,
    nonce,
  };
  if (isBlockForkActive(c, 'londonBlock', g.number)) h.baseFeePerGas = g.baseFeePerGas ?? INITIAL_BASE_FEE;
  if (isTimeForkActive(c, 'shanghaiTime', g.timestamp)) {
    const passer =
      c.optimism && isTimeForkActive(c, 'isthmusTime', g.timestamp) ? g.alloc.get(L2_TO_L1_MESSAGE_PASSER) : undefined;
    h.withdrawalsRoot = passer ? storageRoot(passer.storage) : EMPTY_TRIE_ROOT;
  }
  if (isTimeForkActive(c, 'cancunTime', g.timestamp)) {
    h.excessBlobGas = g.excessBlobGas ?? 0n;
    h.blobGasUsed = g.blobGasUsed ?? 0n;
    h.parentBeaconBlockRoot = zero32;
  }
  if (isTimeForkActive(c, 'pragueTime', g.timestamp)) h.requestsHash = EMPTY_REQUESTS_HASH;
  return h;
}
