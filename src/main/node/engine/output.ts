// Output root v0 (specs/protocol/proposals.md "L2 Output Commitment Construction"):
//   keccak256(version ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash), version = 32 zero bytes,
// and the check op-node makes before trusting an eth_getProof answer: the account proof of the
// L2ToL1MessagePasser must lead from the block's state root to an account whose storage root is the one reported.
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { equalBytes as equal } from '../../primitives/bytes.js';
import { asBytes, asList, rlpDecode } from '../../primitives/rlp.js';

export const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';
export const OUTPUT_VERSION_V0 = new Uint8Array(32);

export function outputRootV0(
  stateRoot: Uint8Array,
  messagePasserStorageRoot: Uint8Array,
  blockHash: Uint8Array,
): Uint8Array {
  const buf = new Uint8Array(128);
  buf.set(OUTPUT_VERSION_V0, 0);
  buf.set(stateRoot, 32);
  buf.set(messagePasserStorageRoot, 64);
  buf.set(blockHash, 96);
  return keccak256(buf);
}

function invalid(message: string): TernError {
  return new TernError('ENGINE_BAD_PROOF', `invalid withdrawal root proof: ${message}`, { severity: 'temporary' });
}

/** Verifies an EIP-1186 account proof against the state root and the storage root it claims. */
export async function verifyAccountProof(
  stateRoot: Uint8Array,
  address: Uint8Array,
  accountProof: readonly Uint8Array[],
  storageHash: Uint8Array,
): Promise<void> {
  const first = accountProof[0];
  if (first === undefined) throw invalid('empty account proof');
  if (!equal(keccak256(first), stateRoot)) throw invalid('proof does not start at the state root');
  let value: Uint8Array | null;
  try {
    value = await verifyMerkleProof(keccak256(address), [...accountProof], { root: stateRoot, useKeyHashing: false });
  } catch (err) {
    throw invalid(err instanceof Error ? err.message : String(err));
  }
  if (value === null) throw invalid('the message passer account is absent from the state');
  const fields = asList(rlpDecode(value), 'account');
  const root = asBytes(fields[2], 'storageRoot');
  if (!equal(root, storageHash)) throw invalid("the account's storage root differs from the reported storage hash");
}
