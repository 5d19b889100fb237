// The object model behind geth's GraphQL schema. Each type is a class whose methods are its fields (graphql-js
// calls `source[field](args, request)`); blocks and transactions resolve lazily and remember what they read, so a
// query touching many fields of one block reads its header, body and receipts once. Every read goes through the
// code of the JSON-RPC methods: block selectors (blockTag.ts), the transaction index (txLookup.ts), receipts
// (format.ts receiptsToJson), logs (logs.ts getLogs), state (stateAt.ts), calls (CallRunner), and the registered
// eth_* handlers for gas prices, chain id, sync status, pool nonces and transaction submission. One request reads
// one database snapshot (GraphqlRequest.view), as one JSON-RPC request does.

import type { BlockNumberOrHash, BlockNumberParam } from '../../common/rpc/params.js';
import type { CallContext, RpcHandler } from '../../common/rpc/registry.js';
import { type Block, encodeBlock } from '../../primitives/block/block.js';
import { encodeHeader, headerHash } from '../../primitives/block/header.js';
import { fromHex } from '../../primitives/bytes.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { encodeReceipt } from '../../primitives/receipt/receipt.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { ChainView, type HeaderRef } from '../chain/chainView.js';
import { stateAt } from '../chain/stateAt.js';
import type { CallArgs } from '../evm/callMessage.js';
import type { ExecRpcBackend } from '../rpc/backend.js';
import { headerByHash, headerByNumber, isPending, stateBlockRef } from '../rpc/blockTag.js';
import { hex, qty, receiptsToJson } from '../rpc/format.js';
import { childBaseFee, effectiveTip } from '../rpc/gasPrice.js';
import { getLogs, type LogFilter } from '../rpc/logs.js';
import { findMinedTx } from '../rpc/txLookup.js';
import type { TernTxPool } from '../txpool/pool.js';

const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;
/** Headers `blocks` reads between two turns of the event loop. */
const BLOCKS_PER_SLICE = 256;

/** What the GraphQL service reads through. */
export interface GraphqlDeps {
  backend: ExecRpcBackend;
  /** The registered JSON-RPC handlers by full name (eth_gasPrice...), so both APIs answer from one code path. */
  method(name: string): RpcHandler | undefined;
  /** The transaction pool (pending state); absent in read-only setups. */
  pool?: TernTxPool | undefined;
}

/** One GraphQL request: its database snapshot, its cancellation, the way to call the eth_* handlers. */
export class GraphqlRequest {
  #view: ChainView | undefined;
  #pendingLoaded: Promise<ChainView> | undefined;

  constructor(
    readonly deps: GraphqlDeps,
    readonly signal: AbortSignal,
  ) {}

  /** The request's consistent view of the chain (opened on first use, released by release()). */
  view(): ChainView {
    this.#view ??= ChainView.open(this.deps.backend.db, this.deps.backend.config);
    return this.#view;
  }

  /** The view with the computed pending block attached (--rollup.computependingblock), for `pending` reads. */
  pendingView(): Promise<ChainView> {
    this.#pendingLoaded ??= (async () => {
      const view = this.view();
      const source = this.deps.backend.pendingBlocks;
      if (source) view.pending = await source.get(view);
      return view;
    })();
    return this.#pendingLoaded;
  }

  /** A view that can answer `sel` (the pending one only when the selector names pending). */
  viewFor(sel: BlockNumberOrHash): Promise<ChainView> | ChainView {
    return isPending(sel) ? this.pendingView() : this.view();
  }

  release(): void {
    this.#view?.release();
    this.#view = undefined;
  }

  checkAborted(): void {
    if (this.signal.aborted) throw serverError('context canceled');
  }

  /** Calls a registered JSON-RPC method the way an HTTP client would. */
  async rpc(name: string, params: unknown[]): Promise<unknown> {
    const handler = this.deps.method(name);
    if (!handler) throw serverError(`the method ${name} is not available`);
    const ctx: CallContext = {
      method: name,
      transport: 'http',
      peer: { transport: 'http', remoteAddr: '' },
      signal: this.signal,
      canSubscribe: false,
      createSubscription: () => {
        throw serverError('notifications not supported');
      },
    };
    return handler(params, ctx);
  }
}

const LATEST: BlockNumberOrHash = { blockNumber: 'latest', requireCanonical: false };
const PENDING: BlockNumberOrHash = { blockNumber: 'pending', requireCanonical: false };
const byHash = (hash: Uint8Array): BlockNumberOrHash => ({
  blockHash: hex(hash) as `0x${string}`,
  requireCanonical: false,
});

/** geth's rpc.BlockNumber for a Long: -1 pending, -2 latest, -3 finalized, -4 safe, -5 earliest. */
export function longToBlockNumber(n: bigint): BlockNumberParam {
  if (n >= 0n) return n;
  const tags: Record<string, BlockNumberParam> = {
    '-1': 'pending',
    '-2': 'latest',
    '-3': 'finalized',
    '-4': 'safe',
    '-5': 'earliest',
  };
  const tag = tags[n.toString()];
  if (tag === undefined) throw serverError(`invalid block number ${n}`);
  return tag;
}

/** BlockNumberArgs.NumberOrLatest: the block an `(block: Long)` argument names, latest when absent. */
function blockArg(args: { block?: bigint | null }): BlockNumberOrHash {
  if (args.block === undefined || args.block === null) return LATEST;
  return { blockNumber: longToBlockNumber(args.block), requireCanonical: false };
}

// ---- Account ----------------------------------------------------------------------------------------------------

export class Account {
  constructor(
    private readonly req: GraphqlRequest,
    private readonly addr: string,
    private readonly sel: BlockNumberOrHash,
  ) {}

  async #state() {
    const view = await this.req.viewFor(this.sel);
    return stateAt(view, stateBlockRef(view, this.sel));
  }

  address(): string {
    return this.addr;
  }

  async balance(): Promise<bigint> {
    return (await this.#state()).getAccount(fromHex(this.addr))?.balance ?? 0n;
  }

  async transactionCount(): Promise<unknown> {
    // The pool's nonce for pending, as eth_getTransactionCount(…, "pending") answers it.
    if (isPending(this.sel) && this.req.deps.pool)
      return this.req.rpc('eth_getTransactionCount', [this.addr, 'pending']);
    return (await this.#state()).getAccount(fromHex(this.addr))?.nonce ?? 0n;
  }

  async code(): Promise<Uint8Array> {
    const state = await this.#state();
    const account = state.getAccount(fromHex(this.addr));
    return account ? state.getCode(account.codeHash) : new Uint8Array(0);
  }

  async storage(args: { slot: string }): Promise<string> {
    const value = (await this.#state()).getStorage(fromHex(this.addr), fromHex(args.slot));
    return `0x${value.toString(16).padStart(64, '0')}`;
  }
}

// ---- Log --------------------------------------------------------------------------------------------------------

/** A log as getLogs returns it (hex fields). */
type LogJson = Record<string, unknown> & { address: string; topics: string[]; data: string; logIndex: string };

export class Log {
  constructor(
    private readonly req: GraphqlRequest,
    private readonly log: LogJson,
    private readonly tx: Transaction,
  ) {}

  index(): string {
    return this.log.logIndex;
  }

  account(args: { block?: bigint | null }): Account {
    return new Account(this.req, this.log.address, blockArg(args));
  }

  topics(): string[] {
    return this.log.topics;
  }

  data(): string {
    return this.log.data;
  }

  transaction(): Transaction {
    return this.tx;
  }
}

function logFilter(args: {
  addresses?: string[] | null;
  topics?: string[][] | null;
}): Pick<LogFilter, 'addresses' | 'topics'> {
  return { addresses: args.addresses ?? [], topics: args.topics ?? [] };
}

// ---- Transaction ------------------------------------------------------------------------------------------------

interface ResolvedTx {
  tx: DecodedTx;
  raw: Uint8Array;
  /** The sender when known without recovery (pool transactions). */
  sender?: Uint8Array | undefined;
  /** The block holding it; undefined while pending. */
  block?: BlockNode | undefined;
  index: number;
}

const DYNAMIC_FEE_TYPES = new Set([2, 3, 4]);

export class Transaction {
  #resolved: ResolvedTx | null | undefined;

  constructor(
    private readonly req: GraphqlRequest,
    private readonly txHash: string,
    known?: ResolvedTx,
  ) {
    this.#resolved = known;
  }

  /** The transaction: mined (canonical) first, else the pool's; null when neither has it. */
  resolve(): ResolvedTx | null {
    if (this.#resolved !== undefined) return this.#resolved;
    const view = this.req.view();
    const mined = findMinedTx(view, fromHex(this.txHash));
    if (mined) {
      const raw = mined.block.transactions[mined.index] as Uint8Array;
      const block = new BlockNode(this.req, byHash(mined.ref.hash), mined.ref);
      this.#resolved = { tx: decodeTransaction(raw), raw, block, index: mined.index };
      return this.#resolved;
    }
    const pooled = this.req.deps.pool?.get(fromHex(this.txHash));
    this.#resolved = pooled ? { tx: pooled.tx, raw: pooled.tx.raw, sender: pooled.sender, index: 0 } : null;
    return this.#resolved;
  }

  #tx(): DecodedTx | undefined {
    return this.resolve()?.tx;
  }

  #baseFee(): bigint | undefined {
    return this.resolve()?.block?.header().baseFeePerGas;
  }

  #receiptRow(): Record<string, unknown> | undefined {
    const r = this.resolve();
    return r?.block ? r.block.receiptRow(r.index) : undefined;
  }

  #receipt(): Receipt | undefined {
    const r = this.resolve();
    return r?.block ? r.block.receiptAt(r.index) : undefined;
  }

  hash(): string {
    return this.txHash;
  }

  nonce(): bigint {
    return this.#tx()?.nonce ?? 0n;
  }

  index(): number | null {
    const r = this.resolve();
    return r?.block ? r.index : null;
  }

  from(args: { block?: bigint | null }): Account | null {
    const r = this.resolve();
    if (!r) return null;
    const sender = r.tx.deposit?.from ?? r.sender ?? this.req.deps.backend.senderOf(r.raw, r.tx);
    return new Account(this.req, hex(sender), blockArg(args));
  }

  to(args: { block?: bigint | null }): Account | null {
    const to = this.#tx()?.to;
    return to ? new Account(this.req, hex(to.bytes), blockArg(args)) : null;
  }

  value(): bigint {
    return this.#tx()?.value ?? 0n;
  }

  /** The legacy price, or for a mined dynamic-fee transaction min(tip + base fee, fee cap). */
  gasPrice(): bigint {
    const tx = this.#tx();
    if (!tx) return 0n;
    if (DYNAMIC_FEE_TYPES.has(tx.type)) {
      const baseFee = this.#baseFee();
      const cap = tx.maxFeePerGas ?? 0n;
      if (baseFee === undefined) return cap;
      const price = (tx.maxPriorityFeePerGas ?? 0n) + baseFee;
      return price < cap ? price : cap;
    }
    return tx.gasPrice ?? 0n;
  }

  maxFeePerGas(): bigint | null {
    const tx = this.#tx();
    return tx && DYNAMIC_FEE_TYPES.has(tx.type) ? (tx.maxFeePerGas ?? 0n) : null;
  }

  maxPriorityFeePerGas(): bigint | null {
    const tx = this.#tx();
    return tx && DYNAMIC_FEE_TYPES.has(tx.type) ? (tx.maxPriorityFeePerGas ?? 0n) : null;
  }

  maxFeePerBlobGas(): bigint | null {
    return this.#tx()?.maxFeePerBlobGas ?? null;
  }

  effectiveTip(): bigint | null {
    const r = this.resolve();
    if (!r?.block) return null;
    const baseFee = this.#baseFee();
    if (baseFee === undefined) return r.tx.gasPrice ?? r.tx.maxFeePerGas ?? 0n;
    if (r.tx.deposit) return 0n; // op-geth: a deposit tips nothing
    const tip = effectiveTip(r.tx, baseFee);
    if (tip < 0n) throw serverError('fee cap less than block base fee');
    return tip;
  }

  gas(): bigint {
    return this.#tx()?.gasLimit ?? 0n;
  }

  inputData(): Uint8Array {
    return this.#tx()?.data ?? new Uint8Array(0);
  }

  block(): BlockNode | null {
    return this.resolve()?.block ?? null;
  }

  status(): unknown {
    const receipt = this.#receipt();
    if (!receipt || receipt.postState) return null;
    return receipt.status;
  }

  gasUsed(): unknown {
    return this.#receiptRow()?.gasUsed ?? null;
  }

  cumulativeGasUsed(): bigint | null {
    return this.#receipt()?.cumulativeGasUsed ?? null;
  }

  effectiveGasPrice(): bigint | null {
    const r = this.resolve();
    if (!r?.block) return null;
    const baseFee = this.#baseFee();
    const tx = r.tx;
    const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
    if (baseFee === undefined) return tx.gasPrice ?? feeCap;
    const price = (tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n) + baseFee;
    return price < feeCap ? price : feeCap;
  }

  blobGasUsed(): unknown {
    if (this.#tx()?.type !== 3) return null;
    return this.#receiptRow()?.blobGasUsed ?? null;
  }

  blobGasPrice(): unknown {
    if (this.#tx()?.type !== 3) return null;
    return this.#receiptRow()?.blobGasPrice ?? null;
  }

  createdContract(args: { block?: bigint | null }): Account | null {
    const address = this.#receiptRow()?.contractAddress;
    if (typeof address !== 'string' || address === ZERO_ADDRESS) return null;
    return new Account(this.req, address, blockArg(args));
  }

  logs(): Log[] | null {
    const r = this.resolve();
    if (!r?.block) return null;
    const index = qty(r.index);
    return r.block
      .logsMatching({ addresses: [], topics: [] })
      .filter((l) => l.transactionIndex === index)
      .map((l) => new Log(this.req, l, this));
  }

  r(): bigint {
    return this.#tx()?.r ?? 0n;
  }

  s(): bigint {
    return this.#tx()?.s ?? 0n;
  }

  v(): bigint {
    return this.#tx()?.v ?? 0n;
  }

  yParity(): bigint | null {
    const tx = this.#tx();
    return tx && tx.type !== 0 ? tx.v : null;
  }

  type(): number | null {
    return this.#tx()?.type ?? null;
  }

  accessList(): Array<{ address: string; storageKeys: string[] }> | null {
    const tx = this.#tx();
    if (!tx) return null;
    return (tx.accessList ?? []).map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map(hex) }));
  }

  raw(): Uint8Array {
    return this.resolve()?.raw ?? new Uint8Array(0);
  }

  rawReceipt(): Uint8Array {
    const receipt = this.#receipt();
    return receipt ? encodeReceipt(receipt) : new Uint8Array(0);
  }

  blobVersionedHashes(): readonly string[] | null {
    const tx = this.#tx();
    return tx?.type === 3 ? (tx.blobVersionedHashes ?? []) : null;
  }
}

// ---- Block ------------------------------------------------------------------------------------------------------

/** The CallData input as the eth_call code takes it. */
interface CallDataInput {
  from?: string | null;
  to?: string | null;
  gas?: bigint | null;
  gasPrice?: bigint | null;
  maxFeePerGas?: bigint | null;
  maxPriorityFeePerGas?: bigint | null;
  value?: bigint | null;
  data?: string | null;
}

function callArgs(d: CallDataInput): CallArgs {
  const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
  const gas = opt(d.gas);
  if (gas !== undefined && gas < 0n) throw serverError('gas must not be negative');
  return {
    from: d.from ? fromHex(d.from) : undefined,
    to: d.to ? fromHex(d.to) : undefined,
    gas,
    gasPrice: opt(d.gasPrice),
    maxFeePerGas: opt(d.maxFeePerGas),
    maxPriorityFeePerGas: opt(d.maxPriorityFeePerGas),
    value: opt(d.value),
    input: d.data ? fromHex(d.data) : undefined,
  };
}

/** geth's CallResult: status 1 for success, 0 for a failed (reverted, out of gas...) execution. */
async function runCall(req: GraphqlRequest, data: CallDataInput, sel: BlockNumberOrHash) {
  const out = await req.deps.backend.calls.doCall(callArgs(data), sel);
  return { data: out.returnData, gasUsed: out.gasUsed, status: out.error === undefined ? 1 : 0 };
}

export class BlockNode {
  #ref: HeaderRef | undefined;
  #block: Block | null | undefined;
  #receipts: Receipt[] | undefined;
  #receiptRows: Array<Record<string, unknown>> | undefined;
  #logs: LogJson[] | undefined;

  /** `sel` is how the block was named: state reads (account, call) use it, as geth does. */
  constructor(
    private readonly req: GraphqlRequest,
    private readonly sel: BlockNumberOrHash,
    ref: HeaderRef,
  ) {
    this.#ref = ref;
  }

  header(): HeaderRef['header'] {
    return (this.#ref as HeaderRef).header;
  }

  #hash(): Uint8Array {
    return (this.#ref as HeaderRef).hash;
  }

  /** The whole block; null for an ommer (only its header is stored). */
  #body(): Block | null {
    if (this.#block === undefined) this.#block = this.req.view().block(this.#hash()) ?? null;
    return this.#block;
  }

  #receiptList(): Receipt[] {
    if (this.#receipts) return this.#receipts;
    const receipts = this.req.view().receipts(this.#ref as HeaderRef);
    const block = this.#body();
    if (!receipts || !block || receipts.length !== block.transactions.length) throw serverError('receipts not found');
    this.#receipts = receipts;
    return receipts;
  }

  receiptAt(index: number): Receipt | undefined {
    return this.#receiptList()[index];
  }

  /** eth_getBlockReceipts' row of one transaction (gas used, contract address, blob fields...). */
  receiptRow(index: number): Record<string, unknown> | undefined {
    if (!this.#receiptRows) {
      const block = this.#body();
      if (!block) return undefined;
      const backend = this.req.deps.backend;
      this.#receiptRows = receiptsToJson(backend.config, block, this.#hash(), this.#receiptList(), backend.senderOf);
    }
    return this.#receiptRows[index];
  }

  /** The block's logs matching a filter (eth_getLogs with blockHash). */
  logsMatching(f: Pick<LogFilter, 'addresses' | 'topics'>): LogJson[] {
    if (f.addresses.length === 0 && f.topics.length === 0 && this.#logs) return this.#logs;
    const logs = getLogs(this.req.view(), { blockHash: this.#hash(), ...f }) as LogJson[];
    if (f.addresses.length === 0 && f.topics.length === 0) this.#logs = logs;
    return logs;
  }

  #stateSel(): BlockNumberOrHash {
    return this.sel;
  }

  number(): bigint {
    return this.header().number;
  }

  hash(): Uint8Array {
    return this.#hash();
  }

  parent(): BlockNode | null {
    const h = this.header();
    if (h.number < 1n) return null;
    const ref = headerByHash(this.req.view(), h.parentHash);
    return ref ? new BlockNode(this.req, byHash(ref.hash), ref) : null;
  }

  nonce(): Uint8Array {
    return this.header().nonce;
  }

  transactionsRoot(): Uint8Array {
    return this.header().transactionsRoot;
  }

  transactionCount(): number | null {
    return this.#body()?.transactions.length ?? null;
  }

  stateRoot(): Uint8Array {
    return this.header().stateRoot;
  }

  receiptsRoot(): Uint8Array {
    return this.header().receiptsRoot;
  }

  miner(args: { block?: bigint | null }): Account {
    return new Account(this.req, hex(this.header().coinbase), blockArg(args));
  }

  extraData(): Uint8Array {
    return this.header().extraData;
  }

  gasLimit(): bigint {
    return this.header().gasLimit;
  }

  gasUsed(): bigint {
    return this.header().gasUsed;
  }

  baseFeePerGas(): bigint | null {
    return this.header().baseFeePerGas ?? null;
  }

  /** eth_feeHistory's next base fee; null when the next block is before London. */
  nextBaseFeePerGas(): bigint | null {
    const h = this.header();
    const next = childBaseFee(this.req.deps.backend.config, h);
    return h.baseFeePerGas === undefined && next === 0n ? null : next;
  }

  timestamp(): bigint {
    return this.header().timestamp;
  }

  logsBloom(): Uint8Array {
    return this.header().logsBloom;
  }

  mixHash(): Uint8Array {
    return this.header().mixHash;
  }

  difficulty(): bigint {
    return this.header().difficulty;
  }

  ommerCount(): number | null {
    return this.#body()?.uncles.length ?? null;
  }

  #ommer(i: number): BlockNode {
    const header = (this.#body() as Block).uncles[i] as HeaderRef['header'];
    const hash = headerHash(header);
    return new BlockNode(this.req, byHash(hash), { header, hash });
  }

  ommers(): BlockNode[] | null {
    const block = this.#body();
    return block ? block.uncles.map((_, i) => this.#ommer(i)) : null;
  }

  ommerAt(args: { index: bigint }): BlockNode | null {
    const block = this.#body();
    if (!block || args.index < 0n || args.index >= BigInt(block.uncles.length)) return null;
    return this.#ommer(Number(args.index));
  }

  ommerHash(): Uint8Array {
    return this.header().uncleHash;
  }

  #txAt(block: Block, i: number): Transaction {
    const raw = block.transactions[i] as Uint8Array;
    const tx = decodeTransaction(raw);
    return new Transaction(this.req, hex(tx.hash), { tx, raw, block: this, index: i });
  }

  transactions(): Transaction[] | null {
    const block = this.#body();
    return block ? block.transactions.map((_, i) => this.#txAt(block, i)) : null;
  }

  transactionAt(args: { index: bigint }): Transaction | null {
    const block = this.#body();
    if (!block || args.index < 0n || args.index >= BigInt(block.transactions.length)) return null;
    return this.#txAt(block, Number(args.index));
  }

  logs(args: { filter: { addresses?: string[] | null; topics?: string[][] | null } }): Log[] {
    return this.logsMatching(logFilter(args.filter)).map(
      (l) => new Log(this.req, l, new Transaction(this.req, l.transactionHash as string)),
    );
  }

  account(args: { address: string }): Account {
    return new Account(this.req, args.address, this.#stateSel());
  }

  call(args: { data: CallDataInput }) {
    return runCall(this.req, args.data, this.#stateSel());
  }

  estimateGas(args: { data: CallDataInput }): Promise<bigint> {
    return this.req.deps.backend.calls.estimateGas(callArgs(args.data), this.#stateSel());
  }

  rawHeader(): Uint8Array {
    return this.req.view().rawHeader(this.#hash()) ?? encodeHeader(this.header());
  }

  raw(): Uint8Array {
    const block = this.#body();
    return block ? encodeBlock(block) : new Uint8Array(0);
  }

  withdrawalsRoot(): Uint8Array | null {
    return this.header().withdrawalsRoot ?? null;
  }

  withdrawals(): Array<{ index: bigint; validator: bigint; address: Uint8Array; amount: bigint }> | null {
    if (this.header().withdrawalsRoot === undefined) return null;
    const block = this.#body();
    if (!block) return null;
    return (block.withdrawals ?? []).map((w) => ({
      index: w.index,
      validator: w.validatorIndex,
      address: w.address,
      amount: w.amount,
    }));
  }

  blobGasUsed(): bigint | null {
    return this.header().blobGasUsed ?? null;
  }

  excessBlobGas(): bigint | null {
    return this.header().excessBlobGas ?? null;
  }

  /** Amsterdam's header fields: tern's headers do not carry them yet. */
  slotNumber(): null {
    return null;
  }

  blockAccessListHash(): null {
    return null;
  }
}

// ---- Pending ----------------------------------------------------------------------------------------------------

export class Pending {
  constructor(private readonly req: GraphqlRequest) {}

  #pooled() {
    const pool = this.req.deps.pool;
    if (!pool) return [];
    return [...pool.content().pending.values()].flat();
  }

  transactionCount(): number {
    return this.#pooled().length;
  }

  transactions(): Transaction[] {
    return this.#pooled().map(
      (t, i) => new Transaction(this.req, t.hashHex, { tx: t.tx, raw: t.tx.raw, sender: t.sender, index: i }),
    );
  }

  account(args: { address: string }): Account {
    return new Account(this.req, args.address, PENDING);
  }

  call(args: { data: CallDataInput }) {
    return runCall(this.req, args.data, PENDING);
  }

  /** geth estimates the pending state's gas on the latest block. */
  estimateGas(args: { data: CallDataInput }): Promise<bigint> {
    return this.req.deps.backend.calls.estimateGas(callArgs(args.data), LATEST);
  }
}

// ---- Query and Mutation -----------------------------------------------------------------------------------------

/** The root of both operations (graphql-js passes it as the top-level source). */
export class Root {
  constructor(private readonly req: GraphqlRequest) {}

  block(args: { number?: bigint | null; hash?: string | null }): BlockNode | null {
    const hasNumber = args.number !== undefined && args.number !== null;
    const hasHash = args.hash !== undefined && args.hash !== null;
    if (hasNumber && hasHash) throw serverError('only one of number or hash must be specified');
    const view = this.req.view();
    if (hasHash) {
      const ref = headerByHash(view, args.hash as string);
      return ref
        ? new BlockNode(this.req, { blockHash: args.hash as `0x${string}`, requireCanonical: false }, ref)
        : null;
    }
    if (hasNumber && (args.number as bigint) < 0n) return null;
    const number: BlockNumberParam = hasNumber ? (args.number as bigint) : 'latest';
    const ref = headerByNumber(view, number);
    return ref ? new BlockNode(this.req, { blockNumber: number, requireCanonical: false }, ref) : null;
  }

  /** Headers are read in slices with the event loop let through between them: a long range never stalls RPC. */
  async blocks(args: { from?: bigint | null; to?: bigint | null }): Promise<BlockNode[]> {
    if (args.from === undefined || args.from === null) throw serverError('from block number must be specified');
    const view = this.req.view();
    const resolve = (n: bigint): bigint => {
      if (n >= 0n) return n;
      const ref = headerByNumber(view, longToBlockNumber(n));
      if (!ref) throw serverError(`block ${n} not found`);
      return ref.header.number;
    };
    const from = resolve(args.from);
    const to = args.to === undefined || args.to === null ? view.head().header.number : resolve(args.to);
    if (to < from) throw serverError('invalid from and to block combination: from > to');
    const out: BlockNode[] = [];
    for (let n = from; n <= to; n++) {
      const ref = view.headerByNumber(n);
      if (!ref) break; // the blocks after a missing one are missing too
      out.push(new BlockNode(this.req, { blockNumber: n, requireCanonical: false }, ref));
      if (out.length % BLOCKS_PER_SLICE === 0) await new Promise((r) => setImmediate(r));
      this.req.checkAborted();
    }
    return out;
  }

  pending(): Pending {
    return new Pending(this.req);
  }

  transaction(args: { hash: string }): Transaction | null {
    const tx = new Transaction(this.req, args.hash);
    return tx.resolve() ? tx : null;
  }

  logs(args: {
    filter: {
      fromBlock?: bigint | null;
      toBlock?: bigint | null;
      addresses?: string[] | null;
      topics?: string[][] | null;
    };
  }): Log[] {
    const f = args.filter;
    const begin = f.fromBlock ?? -2n;
    const end = f.toBlock ?? -2n;
    if (begin >= 0n && end >= 0n && begin > end) throw serverError('invalid from and to block combination: from > to');
    const filter: LogFilter = {
      fromBlock: longToBlockNumber(begin),
      toBlock: longToBlockNumber(end),
      ...logFilter(f),
    };
    return (getLogs(this.req.view(), filter, this.req.signal) as LogJson[]).map(
      (l) => new Log(this.req, l, new Transaction(this.req, l.transactionHash as string)),
    );
  }

  gasPrice(): Promise<unknown> {
    return this.req.rpc('eth_gasPrice', []);
  }

  maxPriorityFeePerGas(): Promise<unknown> {
    return this.req.rpc('eth_maxPriorityFeePerGas', []);
  }

  async syncing(): Promise<unknown> {
    const progress = await this.req.rpc('eth_syncing', []);
    return progress === false || progress === null ? null : progress;
  }

  chainID(): Promise<unknown> {
    return this.req.rpc('eth_chainId', []);
  }

  sendRawTransaction(args: { data: string }): Promise<unknown> {
    return this.req.rpc('eth_sendRawTransaction', [args.data]);
  }
}
