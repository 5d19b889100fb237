// Which receipts method each --l1.rpckind offers, best first (as op-node's receipts fetching chooses them): one
// call per block where the provider has one, else one eth_getTransactionReceipt per transaction in batches. A
// method the provider answers with "method not found" is dropped for the rest of the run.
export const RPC_KINDS = [
  'alchemy',
  'quicknode',
  'infura',
  'parity',
  'nethermind',
  'debug_geth',
  'erigon',
  'basic',
  'any',
  'standard',
] as const;
export type RpcKind = (typeof RPC_KINDS)[number];

export type ReceiptsMethod =
  | 'alchemy_getTransactionReceipts'
  | 'debug_getRawReceipts'
  | 'parity_getBlockReceipts'
  | 'eth_getBlockReceipts'
  | 'erigon_getBlockReceiptsByBlockHash'
  | 'eth_getTransactionReceipt';

const PER_TX: ReceiptsMethod = 'eth_getTransactionReceipt';

export const RECEIPTS_METHODS: Record<RpcKind, readonly ReceiptsMethod[]> = {
  alchemy: ['alchemy_getTransactionReceipts', 'eth_getBlockReceipts', PER_TX],
  quicknode: ['debug_getRawReceipts', 'eth_getBlockReceipts', PER_TX],
  infura: ['debug_getRawReceipts', 'eth_getBlockReceipts', PER_TX],
  parity: ['parity_getBlockReceipts', PER_TX],
  nethermind: ['parity_getBlockReceipts', PER_TX],
  debug_geth: ['debug_getRawReceipts', 'eth_getBlockReceipts', PER_TX],
  erigon: ['erigon_getBlockReceiptsByBlockHash', PER_TX],
  basic: [PER_TX],
  any: ['eth_getBlockReceipts', PER_TX],
  standard: ['eth_getBlockReceipts', PER_TX],
};

/** The params of a block-receipts method for a block hash. */
export function blockReceiptsParams(method: ReceiptsMethod, blockHash: string): unknown[] {
  return method === 'alchemy_getTransactionReceipts' ? [{ blockHash }] : [blockHash];
}
