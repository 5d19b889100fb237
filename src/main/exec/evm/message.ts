// The execution part shared by every transaction kind once it is valid and paid for: the EIP-2929/2930/3651 warm
// sets, the EVM call or creation, and the end-of-transaction cleanup (EIP-6780 self-destructs, EIP-161 empties).

import type { ExecResult } from '@ethereumjs/evm';
import type { PrefixedHexString } from '@ethereumjs/util';
import { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { fromHex, toHexKey } from '../../primitives/bytes.js';
import type { BlockContext } from './context.js';
import type { AccessListItemBytes } from './interface.js';
import { addressKey, hexKey, slotKey, WarmJournal } from './warmJournal.js';

/** The precompile addresses as words, per list the executor hands out (a new list on each hardfork change). */
const precompileWords = new WeakMap<readonly string[], bigint[]>();

function wordsOf(precompiles: readonly string[]): bigint[] {
  let words = precompileWords.get(precompiles);
  if (words === undefined) {
    words = precompiles.map((hex) => hexKey(hex, 20));
    precompileWords.set(precompiles, words);
  }
  return words;
}

/** The ethereumjs journal's touch, private in its typings: EIP-161 deletes touched accounts left empty. */
export interface TouchingJournal {
  touchAccount(addressUnprefixedHex: string): void;
}

export function unprefixed(bytes: Uint8Array): string {
  return toHexKey(bytes).slice(2);
}

/** Warms the precompiles, sender, recipient, coinbase (Shanghai) and the access list (Berlin on). */
export function prepareWarmSet(
  block: BlockContext,
  sender: Address,
  to: Address | undefined,
  accessList: readonly AccessListItemBytes[] | undefined,
): void {
  const { executor, env } = block;
  const journal = executor.evm.journal;
  journal.cleanJournal();
  if (!env.rules.berlin) return;
  // Every executor's EVM is a TernEVM, whose constructor puts tern's journal in place: the warm set by words.
  const warm = journal as unknown;
  if (!(warm instanceof WarmJournal)) throw new TernError('INTERNAL', "the EVM's journal is not tern's WarmJournal");
  const words = wordsOf(executor.warmPrecompiles());
  for (let i = 0; i < words.length; i++) warm.warmAlways(words[i] as bigint);
  warm.warmAlways(addressKey(sender.bytes));
  if (to !== undefined) warm.warmAlways(addressKey(to.bytes));
  if (env.rules.shanghai) warm.warmAlways(addressKey(env.coinbase.bytes));
  if (accessList !== undefined) {
    for (let i = 0; i < accessList.length; i++) {
      const [address, slots] = accessList[i] as AccessListItemBytes;
      const a = addressKey(address);
      warm.warmAlways(a);
      for (let j = 0; j < slots.length; j++) warm.warmAlwaysSlot(a, slotKey(slots[j] as Uint8Array));
    }
  }
}

/** Self-destructed accounts go (under EIP-6780 only those created in this transaction); EIP-161 cleanup. */
export async function finishExecution(block: BlockContext, exec: ExecResult): Promise<void> {
  const { state, evm } = block.executor;
  const destructed = exec.selfdestruct;
  if (destructed !== undefined && destructed.size > 0) {
    const created = exec.createdAddresses;
    for (const addressHex of destructed.keys()) {
      if (block.env.rules.cancun && created?.has(addressHex as PrefixedHexString) !== true) continue;
      state.removeAccount(new Address(fromHex(addressHex)));
    }
  }
  await evm.journal.cleanup();
}
