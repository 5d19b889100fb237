// The inline BlobVerifier: c-kzg on the calling thread (tests, tools, single-threaded setups). Blocks the thread
// for ~2 ms a blob.
import { checkPackedBlobs } from '../../protocol/blob/blobCheck.js';
import {
  type BlobVerdict,
  type BlobVerifier,
  type BlobVerifyItem,
  type BlobVerifyOptions,
  packBlobItems,
  throwIfAborted,
  verdictsOf,
} from './blobVerifier.js';

export class InlineBlobVerifier implements BlobVerifier {
  readonly threads = 1;

  async verify(items: readonly BlobVerifyItem[], opts: BlobVerifyOptions = {}): Promise<BlobVerdict[]> {
    throwIfAborted(opts.signal);
    if (items.length === 0) return [];
    return verdictsOf(checkPackedBlobs(packBlobItems(items)));
  }
}
