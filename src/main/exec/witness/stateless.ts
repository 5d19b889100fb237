// Stateless execution (op-program's and kona's model): one block on top of a parent header with nothing but a
// witness of preimages. State reads walk the parent's tries over the preimages, BLOCKHASH walks the header chain,
// and the post-state root is computed by the same incremental trie, resolving nodes from the preimages. Two entry
// points: build a block from payload attributes (what execute-witness does for OP chains) and re-execute a given
// block (how an Ethereum chain's witness is checked, having no attributes to build from).
import { TernError } from '../../common/errors.js';
import type { Block } from '../../primitives/block/block.js';
import { type Header, headerHash } from '../../primitives/block/header.js';
import { type ChainConfig, isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';
import { encodeReceiptForRoot } from '../../primitives/receipt/receipt.js';
import { StateCommitment } from '../../primitives/trie/commitment.js';
import { orderedTrieRoot } from '../../primitives/trie/root.js';
import { assembleBlock, type BuildAttributes, type BuiltBlock } from '../chain/builder.js';
import { messagePasserRoot } from '../chain/importer.js';
import { processBlock } from '../chain/processBlock.js';
import { createExecutor } from '../evm/executor.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import type { SenderRecovery } from '../senders/interface.js';
import { witnessBlockHashes } from './ancestors.js';
import type { PreimageStore } from './preimages.js';
import { asMissingPreimage, FaultLog, WitnessStateReader } from './statelessReader.js';

export interface StatelessInput {
  config: ChainConfig;
  parent: Header;
  preimages: PreimageStore;
  /** Sender recovery for the block's transactions; inline by default. */
  senders?: SenderRecovery | undefined;
}

/** What re-executing a block gives: its header with the computed roots, bloom and gas, and that header's hash. */
export interface ReexecutedBlock {
  header: Header;
  hash: Uint8Array;
}

function bad(message: string): never {
  throw new TernError('WITNESS_INPUT', message);
}

async function recoverSenders(senders: SenderRecovery | undefined, txs: readonly Uint8Array[]): Promise<Uint8Array[]> {
  const results = await (senders ?? new InlineSenderRecovery()).recover(txs);
  return results.map((r, i) => {
    if (!r.ok) throw new TernError('BUILD_INVALID_TRANSACTIONS', `transaction ${i}: ${r.message}`);
    return r.address;
  });
}

/** Runs `fn` and, when a preimage was missing on the way, reports that rather than whatever it turned into. */
async function reportingFaults<T>(faults: FaultLog, context: string, fn: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    throw faults.first ?? faults.note(asMissingPreimage(err, context));
  }
  if (faults.first) throw faults.first;
  return result;
}

function setup(input: StatelessInput) {
  const faults = new FaultLog();
  const parentHash = headerHash(input.parent);
  const reader = new WitnessStateReader(input.preimages, input.parent.stateRoot, faults);
  const getBlockHash = witnessBlockHashes(input.parent, parentHash, input.preimages, faults);
  return { faults, parentHash, reader, getBlockHash };
}

/**
 * Builds the block the attributes describe on top of `parent`, from the witness alone (no pool: the block holds
 * the attributes' transactions). Throws WITNESS_MISSING_PREIMAGE naming the first hash the witness lacks.
 */
export async function buildStateless(input: StatelessInput & { attrs: BuildAttributes }): Promise<BuiltBlock> {
  const { config, parent, attrs } = input;
  if (attrs.timestamp <= parent.timestamp)
    bad(`attributes.timestamp ${attrs.timestamp} is not after the parent's ${parent.timestamp}`);
  if (isOptimism(config) && attrs.gasLimit === undefined) bad('attributes.gasLimit is required on OP chains');
  const { faults, parentHash, reader, getBlockHash } = setup(input);
  const forcedSenders = await recoverSenders(input.senders, attrs.transactions ?? []);
  const executor = await createExecutor(config, reader);
  return reportingFaults(faults, 'computing the post-state root', () =>
    assembleBlock({
      executor,
      config,
      parent,
      parentHash,
      attrs,
      forcedSenders,
      reader,
      nodes: input.preimages,
      getBlockHash,
    }),
  );
}

/**
 * Re-executes `block` on top of `parent` from the witness alone and returns its header with the computed state
 * root, receipts root, bloom, gas used (and Isthmus withdrawals root): its hash equals the block's exactly when
 * execution agrees with the header.
 */
export async function reexecuteStateless(input: StatelessInput & { block: Block }): Promise<ReexecutedBlock> {
  const { config, parent, block } = input;
  const { faults, parentHash, reader, getBlockHash } = setup(input);
  if (Buffer.compare(block.header.parentHash, parentHash) !== 0) bad('the block is not a child of the parent header');
  const senders = await recoverSenders(input.senders, block.transactions);
  const executor = await createExecutor(config, reader);
  return reportingFaults(faults, 'computing the post-state root', async () => {
    const outcome = await processBlock({ executor, config, block, senders, getBlockHash });
    const commitment = new StateCommitment(input.preimages).apply(parent.stateRoot, executor.state.diff());
    const isthmus = isOptimism(config) && isTimeForkActive(config, 'isthmusTime', block.header.timestamp);
    const header: Header = {
      ...block.header,
      stateRoot: commitment.root,
      receiptsRoot: orderedTrieRoot(outcome.receipts.map(encodeReceiptForRoot)),
      logsBloom: outcome.logsBloom,
      gasUsed: outcome.gasUsed,
      ...(isthmus ? { withdrawalsRoot: messagePasserRoot(commitment, reader) } : {}),
      ...(block.header.blobGasUsed !== undefined ? { blobGasUsed: outcome.blobGasUsed } : {}),
    };
    return { header, hash: headerHash(header) };
  });
}
