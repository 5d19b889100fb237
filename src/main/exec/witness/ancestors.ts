// BLOCKHASH without a database: the parent's hash is known, and every older hash is the parentHash of a header
// whose RLP the witness holds under its own hash (the hash chain authenticates each step).
import { decodeHeader, type Header } from '../../primitives/block/header.js';
import type { PreimageStore } from './preimages.js';
import type { FaultLog } from './statelessReader.js';

export function witnessBlockHashes(
  parent: Header,
  parentHash: Uint8Array,
  preimages: PreimageStore,
  faults: FaultLog,
): (n: bigint) => Uint8Array | undefined {
  // hashes[i] is the hash of block parent.number - i; `oldest` the deepest header decoded so far.
  const hashes: Uint8Array[] = [parentHash];
  let oldest = parent;
  return (n) => {
    if (n > parent.number || n < 0n) return undefined;
    const depth = Number(parent.number - n);
    while (hashes.length <= depth) {
      const hash = oldest.parentHash;
      hashes.push(hash);
      if (hashes.length <= depth) {
        try {
          oldest = decodeHeader(preimages.require(hash, 'ancestor header', `reading BLOCKHASH(${n})`));
        } catch (err) {
          hashes.pop();
          throw faults.note(err);
        }
      }
    }
    return hashes[depth];
  };
}
