// A block signer: turns a gossiped block's payload hash into the sequencer's 65-byte signature
// (r ‖ s ‖ y_parity) under rollup-node-p2p.md's scheme. Implementations: local.ts (--p2p.sequencer.key) and
// remote.ts (--signer.endpoint, an op-signer compatible service, over mutual TLS by default).
// Errors are TernErrors: SIGNER_* codes; the remote one's transport failures are SIGNER_RPC.

export interface BlockSigner {
  /** 'local' or 'remote', for logs. */
  readonly kind: 'local' | 'remote';
  /** Lower-case 0x address the signatures recover to (the remote signer's --signer.address). */
  readonly address: string;
  /** Signs keccak256(domain ‖ chainId ‖ payloadHash) with the v1 block domain. */
  signBlock(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}
