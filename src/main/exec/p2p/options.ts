// The networking settings of tern-exec as the flags give them (cli/execOptions.ts builds this once).
import type { GatewayPlan } from '../../common/natMapping.js';

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

/**
 * What --nat asks for: an external IP to advertise, a STUN server to ask for it, a gateway to map ports on (UPnP,
 * NAT-PMP, or `any`: whichever of the two answers first, as geth's nat.Any), or nothing.
 */
export function natPlan(nat: string): {
  externalIp: string | undefined;
  stun: { host: string; port: number } | undefined;
  gateway: GatewayPlan | undefined;
  unsupported: string | undefined;
} {
  const trimmed = nat.trim();
  const lower = trimmed.toLowerCase();
  const none = { externalIp: undefined, stun: undefined, gateway: undefined, unsupported: undefined };
  if (lower.startsWith('extip:')) return { ...none, externalIp: trimmed.slice(6) };
  if (lower.startsWith('stun:')) {
    const at = trimmed.lastIndexOf(':');
    return {
      ...none,
      stun: { host: trimmed.slice(5, at).replace(/^\[|\]$/g, ''), port: Number(trimmed.slice(at + 1)) },
    };
  }
  if (lower === 'upnp') return { ...none, gateway: { kind: 'upnp' } };
  if (lower === 'pmp') return { ...none, gateway: { kind: 'pmp', ip: undefined } };
  if (lower.startsWith('pmp:')) return { ...none, gateway: { kind: 'pmp', ip: trimmed.slice(4) } };
  if (lower === 'any') return { ...none, gateway: { kind: 'any' } };
  if (lower === '' || lower === 'none') return none;
  return { ...none, unsupported: trimmed };
}
