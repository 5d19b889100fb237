// Interop activation block upgrade transactions (interop/derivation.md "Network Upgrade Transactions"), and the
// CrossL2Inbox initialization the spec runs on the first block where the chain shares a dependency set with another
// active chain ("CrossL2InboxProxy Initialization"), which op-node reduces to the activation block (see below).
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import type { DependencySet } from '../../interop/dependencySet.js';
import { type BytecodeSource, requireBytecode, upgradeDeposit, upgradeToCalldata, ZERO_ADDRESS } from './common.js';

export const CROSS_L2_INBOX_PROXY = '4200000000000000000000000000000000000022';
export const L2_TO_L2_MESSENGER_PROXY = '4200000000000000000000000000000000000023';

export const INTEROP_L2_TO_L2_MESSENGER_CODE_HASH =
  '0x458925c90ec70736600bef3d6529643a0e7a0a848e62626d61314c057b4a71a9';
export const INTEROP_CROSS_L2_INBOX_CODE_HASH = '0x0e7d028dd71bac22d1fb28966043c8d35c3232c78b7fb99fd1db112b5b60d9dd';

export const INTEROP_L2_TO_L2_MESSENGER_ADDRESS = '0d0edd0ebd0e94d218670a8de867eb5c4d37cadd';
export const INTEROP_CROSS_L2_INBOX_ADDRESS = '691300f512e48b463c2617b34eef1a9f82ee7dbf';

/** The activation block's transactions: the L2ToL2CrossDomainMessenger implementation and its proxy update. */
export function interopUpgradeTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Interop: L2ToL2CrossDomainMessenger Deployment',
      from: '4220000000000000000000000000000000000001',
      gasLimit: 1_100_000,
      data: requireBytecode(
        code,
        'interop-l2-to-l2-cross-domain-messenger-deployment',
        INTEROP_L2_TO_L2_MESSENGER_CODE_HASH,
      ),
    }),
    upgradeDeposit({
      intent: 'Interop: L2ToL2CrossDomainMessenger Proxy Update',
      from: ZERO_ADDRESS,
      to: L2_TO_L2_MESSENGER_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(INTEROP_L2_TO_L2_MESSENGER_ADDRESS),
    }),
  ];
}

/**
 * Whether the interop activation block also initializes the CrossL2Inbox. The spec (specs fd72cf79,
 * interop/derivation.md "CrossL2InboxProxy Initialization") asks for it on the first block at or after the activation
 * block where the chain is in a dependency set with two or more active chains. op-node (since its change for that
 * spec text, optimism PR 16042) checks only once, at the interop activation block, whether the static set lists more
 * than one chain, whatever their activation times and whether this chain is among them; a set that never changes
 * cannot reach the condition later. Where the two differ (a chain of the set activating later, a set without this
 * chain) we follow op-node, so both build the same blocks. No dependency set counts as a set of this chain alone.
 */
export function initializesCrossL2InboxAtInterop(dependencySet: Pick<DependencySet, 'chains'> | undefined): boolean {
  return dependencySet !== undefined && dependencySet.chains().length > 1;
}

/**
 * The CrossL2Inbox implementation and its proxy update: appended after interopUpgradeTxs in the interop activation
 * block when initializesCrossL2InboxAtInterop holds (op-node's order: the always-deployed messenger first).
 */
export function crossL2InboxActivationTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Interop: CrossL2Inbox Deployment',
      from: '4220000000000000000000000000000000000000',
      gasLimit: 420_000,
      data: requireBytecode(code, 'interop-cross-l2-inbox-deployment', INTEROP_CROSS_L2_INBOX_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Interop: CrossL2Inbox Proxy Update',
      from: ZERO_ADDRESS,
      to: CROSS_L2_INBOX_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(INTEROP_CROSS_L2_INBOX_ADDRESS),
    }),
  ];
}
