// The `eth` namespace of tern-exec's user RPC over the stored chain, with geth's semantics and JSON shapes
// (internal/ethapi, eth/filters, eth/gasprice). The pool's methods (eth_sendRawTransaction, the pending fall-backs,
// filters) are layered on in sendTx.ts / filters.ts; accounts (eth_sendTransaction, eth_sign...) answer -32601.

import {
  type BlockNumberOrHash,
  checkArity,
  type Decoder,
  decodeAddress,
  decodeArray,
  decodeBlockNumber,
  decodeBlockNumberOrHash,
  decodeBool,
  decodeHash,
  decodeString,
  decodeUint,
  optionalParam,
  ParamError,
  param,
} from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { keccak256 } from '../../native/keccak.js';
import { type Block, encodeBlock } from '../../primitives/block/block.js';
import { headerHash } from '../../primitives/block/header.js';
import { fromHex } from '../../primitives/bytes.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { invalidParams, serverError } from '../../protocol/jsonrpc/errors.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';
import { stateAt } from '../chain/stateAt.js';
import { txIndexDone, txIndexingError } from '../history/txIndexStatus.js';
import { proveKey } from '../state/trieReader.js';
import type { ExecRpcBackend } from './backend.js';
import { blockRef, headerByHash, headerByNumber, isPending, stateBlockRef } from './blockTag.js';
import { decodeCallArgs } from './callArgs.js';
import { blockToJson, blockTxToJson, headerJson, hex, qty, receiptsToJson, sortKeys } from './format.js';
import { headerBlobBaseFee } from './gasPrice.js';
import { decodeLogFilter, getLogs } from './logs.js';
import { findMinedTx } from './txLookup.js';

const ZERO_HASH = `0x${'00'.repeat(32)}`;

/** geth's ethapi decodeHash: 0x optional, odd length padded, at most 32 bytes, left-padded to a hash. */
export function decodeStorageKey(s: string): { key: Uint8Array; length: number } {
  let digits = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ParamError('hex string invalid');
  const b = Buffer.from(digits, 'hex');
  if (b.length > 32) throw new ParamError('hex string too long, want at most 32 bytes');
  const key = new Uint8Array(32);
  key.set(b, 32 - b.length);
  return { key, length: b.length };
}

/** Parses geth's math.HexOrDecimal64 (a JSON number, or a decimal or 0x string). */
const decodeHexOrDecimal64: Decoder<bigint> = (v) => {
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  const ok = text === '' || /^0[xX][0-9a-fA-F]+$/.test(text) || /^[0-9]+$/.test(text);
  const n = ok ? BigInt(text === '' ? '0' : text) : -1n;
  if (n < 0n || n >= 1n << 64n) throw new ParamError(`invalid hex or decimal integer "${text}"`);
  return n;
};

const decodeFloats: Decoder<number[]> = (v) => {
  if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${typeof v} into Go value of type []float64`);
  return v.map((x) => {
    if (typeof x !== 'number') throw new ParamError(`json: cannot unmarshal ${typeof x} into Go value of type float64`);
    return x;
  });
};

/** Rejects state and block overrides, which tern does not apply yet (null is the same as absent). */
function noOverrides(params: unknown[], from: number): void {
  for (let i = from; i < params.length; i++) {
    if (params[i] !== undefined && params[i] !== null) {
      throw serverError('state and block overrides are not supported by tern-exec yet');
    }
  }
}

const latest: BlockNumberOrHash = { blockNumber: 'latest', requireCanonical: false };

export function ethNamespace(b: ExecRpcBackend): Record<string, RpcHandler> {
  const config = b.config;
  const isOptimism = config.optimism !== undefined;

  /** A block by number or tag, with the pending fields nulled as geth does off-rollup. */
  const blockJsonByNumber = (view: ChainView, n: ReturnType<typeof decodeBlockNumber>, full: boolean) => {
    const ref = headerByNumber(view, n);
    const block = ref && view.block(ref.hash);
    if (!ref || !block) return null;
    const json = blockToJson(block, ref.hash, full, b.senderOf, full ? depositReceipts(view, ref) : undefined);
    if (n === 'pending' && !isOptimism) Object.assign(json, { hash: null, nonce: null, miner: null });
    return json;
  };

  const blockOf = (view: ChainView, ref: HeaderRef | undefined): Block | undefined => ref && view.block(ref.hash);
  /** On OP chains a deposit's JSON nonce is its receipt's depositNonce, so full transactions need the receipts. */
  const depositReceipts = (view: ChainView, ref: HeaderRef): Receipt[] | undefined =>
    isOptimism ? view.receipts(ref) : undefined;

  const findTx = findMinedTx;

  // geth: a transaction not found while the indexer is still behind may just not be indexed yet.
  const notIndexed = (): null => {
    if (!txIndexDone(b.db)) throw txIndexingError();
    return null;
  };

  const uncleJson = (block: Block | undefined, index: number) => {
    const uncle = block?.uncles[index];
    if (!uncle) return null;
    const json: Record<string, unknown> = headerJson({ header: uncle, hash: headerHash(uncle) });
    json.size = qty(encodeBlock({ header: uncle, transactions: [], uncles: [] }).length);
    json.uncles = [];
    return sortKeys(json);
  };

  return {
    chainId: (params) => {
      checkArity(params, 0);
      return qty(config.chainId);
    },
    blockNumber: (params) => {
      checkArity(params, 0);
      return b.read((view) => qty(view.head().header.number));
    },
    syncing: (params) => {
      checkArity(params, 0);
      const p = b.syncProgress?.();
      if (p === undefined) return false;
      // geth's fields; the state counters are snap sync's, zero while blocks are full-synced.
      const snapCounters = [
        'healedBytecodeBytes',
        'healedBytecodes',
        'healedTrienodeBytes',
        'healedTrienodes',
        'healingBytecode',
        'healingTrienodes',
        'syncedAccountBytes',
        'syncedAccounts',
        'syncedBytecodeBytes',
        'syncedBytecodes',
        'syncedStorage',
        'syncedStorageBytes',
      ];
      return sortKeys({
        startingBlock: qty(p.startingBlock),
        currentBlock: qty(p.currentBlock),
        highestBlock: qty(p.highestBlock),
        ...Object.fromEntries(snapCounters.map((k) => [k, '0x0'])),
      });
    },
    accounts: (params) => {
      checkArity(params, 0);
      return [];
    },

    getBlockByNumber: (params) => {
      checkArity(params, 2);
      const n = param(params, 0, decodeBlockNumber);
      const full = param(params, 1, decodeBool);
      return b.read((view) => blockJsonByNumber(view, n, full), isPending(n));
    },
    getBlockByHash: (params) => {
      checkArity(params, 2);
      const hash = param(params, 0, decodeHash);
      const full = param(params, 1, decodeBool);
      return b.read((view) => {
        const ref = headerByHash(view, hash);
        const block = blockOf(view, ref);
        return ref && block
          ? blockToJson(block, ref.hash, full, b.senderOf, full ? depositReceipts(view, ref) : undefined)
          : null;
      });
    },
    getHeaderByNumber: (params) => {
      checkArity(params, 1);
      const n = param(params, 0, decodeBlockNumber);
      return b.read((view) => {
        const ref = headerByNumber(view, n);
        if (!ref) return null;
        const json = headerJson(ref);
        if (n === 'pending' && !isOptimism) Object.assign(json, { hash: null, nonce: null, miner: null });
        return json;
      }, isPending(n));
    },
    getHeaderByHash: (params) => {
      checkArity(params, 1);
      const hash = param(params, 0, decodeHash);
      return b.read((view) => {
        const ref = headerByHash(view, hash);
        return ref ? headerJson(ref) : null;
      });
    },
    getBlockTransactionCountByNumber: (params) => {
      checkArity(params, 1);
      const n = param(params, 0, decodeBlockNumber);
      return b.read((view) => {
        const block = blockOf(view, headerByNumber(view, n));
        return block ? qty(block.transactions.length) : null;
      }, isPending(n));
    },
    getBlockTransactionCountByHash: (params) => {
      checkArity(params, 1);
      const hash = param(params, 0, decodeHash);
      return b.read((view) => {
        const block = blockOf(view, headerByHash(view, hash));
        return block ? qty(block.transactions.length) : null;
      });
    },
    getUncleCountByBlockNumber: (params) => {
      checkArity(params, 1);
      const n = param(params, 0, decodeBlockNumber);
      return b.read((view) => {
        const block = blockOf(view, headerByNumber(view, n));
        return block ? qty(block.uncles.length) : null;
      });
    },
    getUncleCountByBlockHash: (params) => {
      checkArity(params, 1);
      const hash = param(params, 0, decodeHash);
      return b.read((view) => {
        const block = blockOf(view, headerByHash(view, hash));
        return block ? qty(block.uncles.length) : null;
      });
    },
    getUncleByBlockNumberAndIndex: (params) => {
      checkArity(params, 2);
      const n = param(params, 0, decodeBlockNumber);
      const index = param(params, 1, decodeUint);
      return b.read((view) => uncleJson(blockOf(view, headerByNumber(view, n)), index));
    },
    getUncleByBlockHashAndIndex: (params) => {
      checkArity(params, 2);
      const hash = param(params, 0, decodeHash);
      const index = param(params, 1, decodeUint);
      return b.read((view) => uncleJson(blockOf(view, headerByHash(view, hash)), index));
    },

    getTransactionByHash: (params) => {
      checkArity(params, 1);
      const hash = fromHex(param(params, 0, decodeHash));
      return b.read((view) => {
        const found = findTx(view, hash);
        if (!found) return notIndexed();
        return blockTxToJson(found.block, found.ref.hash, found.index, b.senderOf, depositReceipts(view, found.ref));
      });
    },
    getTransactionByBlockHashAndIndex: (params) => {
      checkArity(params, 2);
      const hash = param(params, 0, decodeHash);
      const index = param(params, 1, decodeUint);
      return b.read((view) => {
        const ref = headerByHash(view, hash);
        const block = blockOf(view, ref);
        return ref && block ? blockTxToJson(block, ref.hash, index, b.senderOf, depositReceipts(view, ref)) : null;
      });
    },
    getTransactionByBlockNumberAndIndex: (params) => {
      checkArity(params, 2);
      const n = param(params, 0, decodeBlockNumber);
      const index = param(params, 1, decodeUint);
      return b.read((view) => {
        const ref = headerByNumber(view, n);
        const block = blockOf(view, ref);
        return ref && block ? blockTxToJson(block, ref.hash, index, b.senderOf, depositReceipts(view, ref)) : null;
      }, isPending(n));
    },
    getRawTransactionByHash: (params) => {
      checkArity(params, 1);
      const hash = fromHex(param(params, 0, decodeHash));
      return b.read((view) => {
        const found = findTx(view, hash);
        return found ? hex(found.block.transactions[found.index] as Uint8Array) : notIndexed();
      });
    },
    getRawTransactionByBlockHashAndIndex: (params) => {
      checkArity(params, 2);
      const hash = param(params, 0, decodeHash);
      const index = param(params, 1, decodeUint);
      return b.read((view) => {
        const raw = blockOf(view, headerByHash(view, hash))?.transactions[index];
        return raw ? hex(raw) : '0x';
      });
    },
    getRawTransactionByBlockNumberAndIndex: (params) => {
      checkArity(params, 2);
      const n = param(params, 0, decodeBlockNumber);
      const index = param(params, 1, decodeUint);
      return b.read((view) => {
        const raw = blockOf(view, headerByNumber(view, n))?.transactions[index];
        return raw ? hex(raw) : '0x';
      });
    },
    getTransactionReceipt: (params) => {
      checkArity(params, 1);
      const hash = fromHex(param(params, 0, decodeHash));
      return b.read((view) => {
        const found = findTx(view, hash);
        if (!found) return notIndexed();
        const receipts = view.receipts(found.ref);
        if (!receipts || receipts.length !== found.block.transactions.length) {
          throw serverError('receipts not found');
        }
        return receiptsToJson(config, found.block, found.ref.hash, receipts, b.senderOf, found.index)[found.index];
      });
    },
    getBlockReceipts: (params) => {
      checkArity(params, 1);
      const sel = param(params, 0, decodeBlockNumberOrHash);
      return b.read((view) => {
        const ref = blockRef(view, sel);
        const block = blockOf(view, ref);
        if (!ref || !block) return null;
        const receipts = view.receipts(ref) ?? [];
        if (receipts.length !== block.transactions.length) {
          throw serverError(`receipts length mismatch: ${block.transactions.length} vs ${receipts.length}`);
        }
        return receiptsToJson(config, block, ref.hash, receipts, b.senderOf);
      });
    },

    getBalance: (params) => {
      checkArity(params, 2);
      const address = fromHex(param(params, 0, decodeAddress));
      const sel = param(params, 1, decodeBlockNumberOrHash);
      return b.read(
        (view) => qty(stateAt(view, stateBlockRef(view, sel)).getAccount(address)?.balance ?? 0n),
        isPending(sel),
      );
    },
    getTransactionCount: (params) => {
      checkArity(params, 2);
      const address = fromHex(param(params, 0, decodeAddress));
      const sel = param(params, 1, decodeBlockNumberOrHash);
      // Without a pool (sendTx.ts answers `pending` from it): the computed pending block's state, else the head's.
      if (isPending(sel) && b.pendingBlocks)
        return b.read((view) => qty(stateAt(view, stateBlockRef(view, sel)).getAccount(address)?.nonce ?? 0n), true);
      const at = isPending(sel) ? latest : sel;
      return b.read((view) => qty(stateAt(view, stateBlockRef(view, at)).getAccount(address)?.nonce ?? 0n));
    },
    getCode: (params) => {
      checkArity(params, 2);
      const address = fromHex(param(params, 0, decodeAddress));
      const sel = param(params, 1, decodeBlockNumberOrHash);
      return b.read((view) => {
        const state = stateAt(view, stateBlockRef(view, sel));
        const account = state.getAccount(address);
        return hex(account ? state.getCode(account.codeHash) : new Uint8Array(0));
      }, isPending(sel));
    },
    getStorageAt: (params) => {
      checkArity(params, 3);
      const address = fromHex(param(params, 0, decodeAddress));
      const key = param(params, 1, decodeString);
      const sel = param(params, 2, decodeBlockNumberOrHash);
      return b.read((view) => {
        const state = stateAt(view, stateBlockRef(view, sel));
        let slot: Uint8Array;
        try {
          slot = decodeStorageKey(key).key;
        } catch (err) {
          throw serverError(`unable to decode storage key: ${(err as Error).message}`);
        }
        return `0x${state.getStorage(address, slot).toString(16).padStart(64, '0')}`;
      }, isPending(sel));
    },
    getProof: (params) => {
      checkArity(params, 3);
      const addressHex = param(params, 0, decodeAddress);
      const address = fromHex(addressHex);
      const keys = param(params, 1, decodeArray(decodeString));
      const sel = param(params, 2, decodeBlockNumberOrHash);
      const slots = keys.map((k) => {
        try {
          return decodeStorageKey(k);
        } catch (err) {
          throw serverError((err as Error).message);
        }
      });
      return b.read((view) => {
        const ref = stateBlockRef(view, sel);
        const state = stateAt(view, ref);
        const nodes = view.state();
        const account = state.getAccount(address);
        const storageRoot = account?.storageRoot;
        const hasStorage = storageRoot !== undefined && !equalBytes(storageRoot, EMPTY_TRIE_ROOT);
        const storageProof = slots.map(({ key, length }) => {
          const outKey = length === 32 ? hex(key) : qty(BigInt(hex(key)));
          if (!hasStorage) return { key: outKey, value: '0x0', proof: [] };
          return {
            key: outKey,
            value: qty(state.getStorage(address, key)),
            proof: proveKey(nodes, storageRoot, keccak256(key)).map(hex),
          };
        });
        return {
          address: addressHex,
          accountProof: proveKey(nodes, ref.header.stateRoot, keccak256(address)).map(hex),
          balance: qty(account?.balance ?? 0n),
          codeHash: account ? hex(account.codeHash) : ZERO_HASH,
          nonce: qty(account?.nonce ?? 0n),
          storageHash: account ? hex(storageRoot ?? EMPTY_TRIE_ROOT) : ZERO_HASH,
          storageProof,
        };
      });
    },

    getLogs: (params, ctx) => {
      checkArity(params, 1);
      const filter = decodeLogFilter(params[0]);
      return b.read((view) => getLogs(view, filter, ctx.signal));
    },

    blobBaseFee: (params) => {
      checkArity(params, 0);
      return b.read((view) => {
        const fee = headerBlobBaseFee(config, view.head().header);
        return fee === undefined ? null : qty(fee);
      });
    },
    gasPrice: (params) => {
      checkArity(params, 0);
      return b.read((view) => {
        const tip = b.oracle.suggestTipCap(view);
        return qty(tip + (view.head().header.baseFeePerGas ?? 0n));
      });
    },
    maxPriorityFeePerGas: (params) => {
      checkArity(params, 0);
      return b.read((view) => qty(b.oracle.suggestTipCap(view)));
    },
    feeHistory: (params) => {
      // The percentiles are a required argument in geth (a slice, not a pointer), null meaning none.
      checkArity(params, 2, 3);
      if (params.length < 3) throw invalidParams('missing value for required argument 2');
      const count = param(params, 0, decodeHexOrDecimal64);
      const last = param(params, 1, decodeBlockNumber);
      const percentiles = optionalParam(params, 2, decodeFloats) ?? [];
      return b.read((view) => {
        const h = b.oracle.feeHistory(view, count, last, percentiles);
        const out: Record<string, unknown> = { oldestBlock: qty(h.oldestBlock) };
        if (h.reward && h.reward.length > 0) out.reward = h.reward.map((r) => r.map(qty));
        if (h.baseFee && h.baseFee.length > 0) out.baseFeePerGas = h.baseFee.map(qty);
        out.gasUsedRatio = h.gasUsedRatio ?? null;
        if (h.blobBaseFee && h.blobBaseFee.length > 0) out.baseFeePerBlobGas = h.blobBaseFee.map(qty);
        if (h.blobGasUsedRatio && h.blobGasUsedRatio.length > 0) out.blobGasUsedRatio = h.blobGasUsedRatio;
        return out;
      });
    },

    call: (params) => {
      checkArity(params, 1, 4);
      const args = param(params, 0, decodeCallArgs);
      const sel = optionalParam(params, 1, decodeBlockNumberOrHash) ?? latest;
      noOverrides(params, 2);
      return b.calls.call(args, sel);
    },
    estimateGas: async (params) => {
      checkArity(params, 1, 4);
      const args = param(params, 0, decodeCallArgs);
      const sel = optionalParam(params, 1, decodeBlockNumberOrHash) ?? latest;
      noOverrides(params, 2);
      return qty(await b.calls.estimateGas(args, sel));
    },
    createAccessList: async (params) => {
      checkArity(params, 1, 3);
      const args = param(params, 0, decodeCallArgs);
      const sel = optionalParam(params, 1, decodeBlockNumberOrHash) ?? latest;
      noOverrides(params, 2);
      const r = await b.calls.createAccessList(args, sel);
      return {
        accessList: r.accessList,
        ...(r.error !== undefined ? { error: r.error } : {}),
        gasUsed: qty(r.gasUsed),
      };
    },
  };
}
