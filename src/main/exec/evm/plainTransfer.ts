// A plain value transfer — a call to an account without code that is not a precompile — applied as the balance moves
// @ethereumjs/evm's runCall makes for it, without a message, a frame checkpoint or the warm sets: the sender loses
// the value, the recipient gains it (created if missing), the recipient is touched (EIP-161 removes it at the end of
// the transaction if it is left empty), no gas is used beyond the intrinsic, and the call succeeds with no output.
// Anything else (code, EIP-7702 delegations, precompiles, listeners on the EVM's messages, a balance that would
// overflow, forks whose EIPs charge or record the transfer itself) takes the EVM path.
import type { Common } from '@ethereumjs/common';
import type { EVM, ExecResult } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import { type FlatState, isEmptyCodeHash } from '../state/flatState.js';
import { MAX_UINT256 } from './fees.js';
import { type TouchingJournal, unprefixed } from './message.js';

const EMPTY = new Uint8Array(0);
/**
 * EIPs under which a top-level call to a codeless account does more than move the value: Verkle/binary-tree access
 * witnesses (6800, 7864), EIP-2780's new-account and delegation charges, EIP-7928 block access lists, EIP-8037
 * state gas.
 */
const TRANSFER_EIPS = [2780, 6800, 7864, 7928, 8037];

/** How many transactions took this path (the differential test checks that its cases reach it). */
export const plainTransferStats = { applied: 0 };

/** Whether the fork of `common` lets a plain transfer skip the EVM (checked when the hardfork changes). */
export function plainTransfersExact(common: Common): boolean {
  for (const eip of TRANSFER_EIPS) if (common.isActivatedEIP(eip)) return false;
  return true;
}

/**
 * Whether a call of `value` to `to` is a plain transfer: `to` has no code (so no delegation either), is not in the
 * precompile range (every precompile, OP's included, sits below 0x10000: those addresses go to the EVM), nothing
 * listens to the EVM's messages (eth_call's deadline and gas probes), and the recipient's balance cannot overflow.
 */
export function isPlainTransfer(state: FlatState, evm: EVM, to: Address, value: bigint): boolean {
  const bytes = to.bytes;
  let low = true;
  for (let i = 0; i < 18; i++) {
    if (bytes[i] !== 0) {
      low = false;
      break;
    }
  }
  if (low) return false;
  if (!isEmptyCodeHash(state.getCodeHash(to))) return false;
  if (state.getBalance(to) + value > MAX_UINT256) return false;
  const events = evm.events;
  return (
    events === undefined || (events.listenerCount('beforeMessage') === 0 && events.listenerCount('afterMessage') === 0)
  );
}

/**
 * Moves the value and touches the recipient as runCall would; the caller has checked that the sender holds the
 * value. The sender is not touched: its nonce was just raised, so EIP-161 can never remove it.
 */
export function transferValue(
  state: FlatState,
  journal: EVM['journal'],
  sender: Address,
  to: Address,
  value: bigint,
): ExecResult {
  plainTransferStats.applied++;
  state.subBalance(sender, value);
  state.addBalance(to, value);
  (journal as unknown as TouchingJournal).touchAccount(unprefixed(to.bytes));
  return { executionGasUsed: 0n, gasRefund: 0n, returnValue: EMPTY, logs: [] };
}
