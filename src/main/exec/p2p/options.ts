// The networking settings of tern-exec as the flags give them (cli/execOptions.ts builds this once).
export interface P2pNodeOptions {
  /** --maxpeers > 0: otherwise no listener, no discovery, no peers (geth: "0 disables the network"). */
  enabled: boolean;
  port: number;
  discoveryPort: number;
  /** --discovery.v4 and not --nodiscover. */
  discv4: boolean;
  /** --discovery.v5 and not --nodiscover. */
  discv5: boolean;
  /** --discovery.dns (EIP-1459 trees), empty: off. */
  dns: string[];
  /** --bootnodes, or the bundled network's list. */
  bootnodes: string[];
  maxPeers: number;
  maxPendingPeers: number;
  /** --nat as given. */
  nat: string;
  netRestrict: string[];
  nodeKeyHex: string | undefined;
  nodeKeyFile: string | undefined;
  /** --identity */
  identity: string | undefined;
  /** --eth.requiredblocks as [number, 0x hash]. */
  requiredBlocks: Array<[bigint, string]>;
  /** Off with --rollup.disabletxpoolgossip. */
  txGossip: boolean;
}

/** What --nat asks for: an external IP to advertise, or a mechanism tern does not have. */
export function natPlan(nat: string): { externalIp: string | undefined; unsupported: string | undefined } {
  const lower = nat.trim().toLowerCase();
  if (lower.startsWith('extip:')) return { externalIp: nat.trim().slice(6), unsupported: undefined };
  if (lower === '' || lower === 'none' || lower === 'any') return { externalIp: undefined, unsupported: undefined };
  return { externalIp: undefined, unsupported: nat };
}
