// What the account RPC methods (eth_accounts, eth_sign, eth_signTransaction, eth_sendTransaction) sign with: the
// local keystore (AccountManager) or an external clef-protocol signer (--signer). geth uses one or the other.
import type { CallArgs } from '../evm/callMessage.js';

/** Filled transaction fields, ready to sign. */
export interface FilledTx {
  type: 0 | 1 | 2 | 3 | 4;
  args: CallArgs & { from: Uint8Array; nonce: bigint; gas: bigint; chainId: bigint; value: bigint };
}

export interface AccountBackend {
  /** eth_accounts: lower-case 0x addresses. */
  accounts(): Promise<string[]>;
  /** The accounts known without asking anyone (eth_pendingTransactions marks their transactions). */
  knownAccounts(): string[];
  /** Fails (TernError) when `address` cannot sign here: unknown, or locked. Checked before any other work. */
  checkCanSign(address: string): Promise<void>;
  /** eth_sign: an EIP-191 personal-message signature, r ‖ s ‖ v with v 27/28. */
  signText(address: string, message: Uint8Array): Promise<Uint8Array>;
  /** A filled transaction signed by its `from`: the consensus encoding. */
  signTransaction(filled: FilledTx): Promise<Uint8Array>;
}
