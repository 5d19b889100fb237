// Whether the transaction index covers every block it should (geth's TxIndexDone), per database: the history service
// registers its indexer here and the RPC asks, so a lookup that misses while indexing is still under way answers
// geth's "transaction indexing is in progress" instead of null. Without a service (tools, tests) it is done.

import type { RpcError } from '../../protocol/jsonrpc/errors.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';

const sources = new WeakMap<object, () => boolean>();

export function registerTxIndexStatus(db: object, done: () => boolean): () => void {
  sources.set(db, done);
  return () => {
    if (sources.get(db) === done) sources.delete(db);
  };
}

export function txIndexDone(db: object): boolean {
  return sources.get(db)?.() ?? true;
}

export const TX_INDEXING_MESSAGE = 'transaction indexing is in progress';

/** geth's TxIndexingError: code -32000, the message also as data. */
export function txIndexingError(): RpcError {
  return serverError(TX_INDEXING_MESSAGE, TX_INDEXING_MESSAGE);
}

export function isTxIndexingError(err: unknown): boolean {
  return err instanceof Error && err.message === TX_INDEXING_MESSAGE;
}
