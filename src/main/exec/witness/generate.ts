// debug_executionWitness: re-executes a stored block on its parent's trie (never the flat state, which only
// holds the head) through recording readers, computes the post-state root over the same recorder, and checks it
// against the header so a witness is never handed out for an execution that disagrees with the chain.
import { TernError } from '../../common/errors.js';
import type { Block } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import { fromHex, toHexKey } from '../../primitives/bytes.js';
import { type ChainConfig, isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';
import { StateCommitment } from '../../primitives/trie/commitment.js';
import { messagePasserRoot } from '../chain/importer.js';
import { processBlock } from '../chain/processBlock.js';
import { createExecutor } from '../evm/executor.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import type { SenderRecovery } from '../senders/interface.js';
import { type CodeAndNodes, TrieStateReader } from '../state/trieReader.js';
import { RecordingBlockHashes, RecordingNodeReader, RecordingStateReader } from './recorder.js';
import type { ExecutionWitness } from './witness.js';

/** The stored chain as the generator reads it (a ChainView has this shape). */
export interface WitnessChain {
  readonly config: ChainConfig;
  headerByHash(hash: Uint8Array): Header | undefined;
  block(hash: Uint8Array): Block | undefined;
  /** Code and trie nodes by hash. */
  state(): CodeAndNodes;
}

function fail(message: string): never {
  throw new TernError('WITNESS_UNAVAILABLE', message);
}

/** BLOCKHASH along the parent's own branch (a side chain's ancestors are not the canonical ones). */
function branchHashes(
  chain: WitnessChain,
  parent: Header,
  parentHash: Uint8Array,
): (n: bigint) => Uint8Array | undefined {
  const hashes: Uint8Array[] = [parentHash];
  let oldest: Header | undefined = parent;
  return (n) => {
    if (n > parent.number || n < 0n) return undefined;
    const depth = Number(parent.number - n);
    while (hashes.length <= depth && oldest !== undefined) {
      hashes.push(oldest.parentHash);
      oldest = hashes.length <= depth ? chain.headerByHash(oldest.parentHash) : oldest;
    }
    return hashes[depth];
  };
}

/** Headers from the parent back to block `lowest` (inclusive), newest first. */
function ancestorHeaders(chain: WitnessChain, parent: Header, lowest: bigint | undefined): Header[] {
  const out = [parent];
  let h = parent;
  while (lowest !== undefined && h.number > lowest) {
    const next = chain.headerByHash(h.parentHash);
    if (next === undefined) fail(`ancestor ${h.number - 1n} (${toHexKey(h.parentHash)}) is not stored`);
    out.push(next);
    h = next;
  }
  return out;
}

export async function generateWitness(
  chain: WitnessChain,
  blockHash: Uint8Array,
  senderRecovery: SenderRecovery = new InlineSenderRecovery(),
): Promise<ExecutionWitness> {
  const block = chain.block(blockHash);
  if (block === undefined) fail(`block ${toHexKey(blockHash)} not found`);
  const header = block.header;
  if (header.number === 0n) fail('the genesis block has no parent state to execute on');
  const parent = chain.headerByHash(header.parentHash);
  if (parent === undefined) fail(`parent ${toHexKey(header.parentHash)} of block ${header.number} not found`);
  const config = chain.config;

  const nodes = new RecordingNodeReader(chain.state());
  const reader = new RecordingStateReader(new TrieStateReader(nodes, parent.stateRoot));
  const hashes = new RecordingBlockHashes(branchHashes(chain, parent, header.parentHash));
  const recovered = await senderRecovery.recover(block.transactions);
  const senders = recovered.map((r, i) => {
    if (!r.ok) fail(`transaction ${i} of block ${header.number}: ${r.message}`);
    return r.address;
  });
  const executor = await createExecutor(config, reader);
  await processBlock({ executor, config, block, senders, getBlockHash: hashes.get });
  const diff = executor.state.diff();
  const commitment = new StateCommitment(nodes).apply(parent.stateRoot, diff);
  if (Buffer.compare(commitment.root, header.stateRoot) !== 0)
    fail(
      `re-executing block ${header.number} gave state root ${toHexKey(commitment.root)}, header has ${toHexKey(header.stateRoot)}`,
    );
  // Isthmus headers commit to the message passer's storage root: reading it is part of execution.
  if (isOptimism(config) && isTimeForkActive(config, 'isthmusTime', header.timestamp))
    messagePasserRoot(commitment, reader);
  // Keys written without a read (a fresh slot of a created contract) are part of the block's key set too.
  for (const [address, change] of diff.accounts) {
    reader.note(fromHex(address));
    for (const slot of change?.storage.keys() ?? []) reader.note(fromHex(slot));
  }
  return {
    state: [...nodes.nodes.values()],
    codes: [...nodes.codes.values()],
    keys: [...reader.keys.values()],
    headers: ancestorHeaders(chain, parent, hashes.lowest),
  };
}
