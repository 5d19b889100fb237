// The seam between the devp2p transport (exec/p2p) and the sync logic (exec/sync): what sync needs of one remote
// peer and of the set of peers, in wire-level shapes (RLP bytes), so neither side knows the other's internals.

/** eth GetBlockHeaders: origin by number or by hash. */
export interface HeaderRequest {
  origin: bigint | Uint8Array;
  amount: number;
  skip: number;
  reverse: boolean;
}

export interface SyncPeer {
  /** Hex node id (no 0x). */
  readonly id: string;
  /** The head the peer announced in STATUS (or later): hash, and number when known. */
  head(): { hash: Uint8Array; number: bigint | undefined };
  /** RLP-encoded headers, in the order asked; fewer than asked when the peer has fewer. */
  getBlockHeaders(req: HeaderRequest, signal?: AbortSignal): Promise<Uint8Array[]>;
  /** Each body as the RLP list [transactions, uncles, withdrawals?], in the order of `hashes`; may be shorter. */
  getBlockBodies(hashes: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[]>;
  /** Per block, its receipts in consensus encoding (typed receipts as type ‖ rlp), in the order of `hashes`. */
  getReceipts(hashes: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[][]>;
  /** Whether the peer speaks snap/1. */
  readonly snap: boolean;
  /** A raw snap/1 request (message code relative to snap/1, RLP payload with request id); resolves the RLP reply. */
  snapRequest(code: number, payload: Uint8Array, signal?: AbortSignal): Promise<Uint8Array>;
  /** Bad data from this peer: score it down and drop it, with the reason logged. */
  penalise(reason: string): void;
}

export interface PeerSet {
  peers(): readonly SyncPeer[];
  /** Called with each peer that completes the handshake; returns an unsubscribe function. */
  onPeer(listener: (peer: SyncPeer) => void): () => void;
  onPeerLeft(listener: (peer: SyncPeer) => void): () => void;
}

/** Answers snap/1 requests from the local state: message code relative to snap/1, RLP payload in, RLP payload out. */
export interface SnapServer {
  serve(code: number, payload: Uint8Array): Promise<{ code: number; payload: Uint8Array }>;
}
