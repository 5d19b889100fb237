// The pool's settings, one field per --txpool.* / --blobpool.* flag, with geth's defaults (legacypool.DefaultConfig,
// blobpool.DefaultConfig). Paths are resolved against the data directory by the node, not here.

export interface TxPoolOptions {
  /** --txpool.locals: addresses (20 bytes, lower-case hex with 0x) treated as local. */
  locals: readonly string[];
  /** --txpool.nolocals: no local treatment at all (no price exemption, no journal, no eviction shelter). */
  noLocals: boolean;
  /** --txpool.journal: file of local transactions kept across restarts; undefined disables the journal. */
  journal: string | undefined;
  /** --txpool.journalremotes: journal remote transactions too. */
  journalRemotes: boolean;
  /** --txpool.rejournal (ms): how often the journal is rewritten from the pool's current locals. */
  rejournalMs: number;
  /** --txpool.pricelimit (wei): minimum tip for remote transactions. */
  priceLimit: bigint;
  /** --txpool.pricebump (%): minimum price increase to replace a pending or queued transaction. */
  priceBump: bigint;
  /** --txpool.accountslots: executable slots guaranteed per account. */
  accountSlots: number;
  /** --txpool.globalslots: executable slots for all accounts. */
  globalSlots: number;
  /** --txpool.accountqueue: non-executable transactions per account. */
  accountQueue: number;
  /** --txpool.globalqueue: non-executable transactions for all accounts. */
  globalQueue: number;
  /** --txpool.lifetime (ms): how long a non-executable account may stay without activity. */
  lifetimeMs: number;
  /** --txpool.maxtxgas: largest gas limit accepted; 0 for none (op-geth). */
  maxTxGas: bigint;
  /** --blobpool.datadir: where blob transactions and their sidecars are kept; undefined keeps them in memory. */
  blobDataDir: string | undefined;
  /** --blobpool.datacap (bytes): soft cap on stored blob transactions. */
  blobDataCap: number;
  /** --blobpool.pricebump (%): minimum increase of every fee field to replace a blob transaction. */
  blobPriceBump: bigint;
  /** How often queued transactions are checked against the lifetime (geth: every minute). */
  evictionIntervalMs: number;
}

export const txPoolDefaults: TxPoolOptions = {
  locals: [],
  noLocals: false,
  journal: undefined,
  journalRemotes: false,
  rejournalMs: 3_600_000,
  priceLimit: 1n,
  priceBump: 10n,
  accountSlots: 16,
  globalSlots: 5120,
  accountQueue: 64,
  globalQueue: 1024,
  lifetimeMs: 3 * 3_600_000,
  maxTxGas: 0n,
  blobDataDir: undefined,
  blobDataCap: 2_684_354_560,
  blobPriceBump: 100n,
  evictionIntervalMs: 60_000,
};

/** geth's sanitize(): out-of-range values fall back to the defaults. */
export function sanitizeTxPoolOptions(opts: Partial<TxPoolOptions>): TxPoolOptions {
  const o: TxPoolOptions = { ...txPoolDefaults };
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  if (o.rejournalMs < 1000) o.rejournalMs = 1000;
  if (o.priceLimit < 1n) o.priceLimit = txPoolDefaults.priceLimit;
  if (o.priceBump < 1n) o.priceBump = txPoolDefaults.priceBump;
  if (o.accountSlots < 1) o.accountSlots = txPoolDefaults.accountSlots;
  if (o.globalSlots < 1) o.globalSlots = txPoolDefaults.globalSlots;
  if (o.accountQueue < 1) o.accountQueue = txPoolDefaults.accountQueue;
  if (o.globalQueue < 1) o.globalQueue = txPoolDefaults.globalQueue;
  if (o.lifetimeMs < 1) o.lifetimeMs = txPoolDefaults.lifetimeMs;
  if (o.blobPriceBump < 1n) o.blobPriceBump = txPoolDefaults.blobPriceBump;
  o.locals = o.locals.map((a) => a.toLowerCase());
  return o;
}
