// What the sections of tern-exec's flag table share: the headings, the URL schemes, the fork-override shape.
import type { FlagSpec } from '../flag.js';

/**
 * RPC namespaces op-geth serves over HTTP and WS (personal and les are gone upstream; engine is authrpc-only), and
 * `dev`, which geth serves in --dev mode (tern-exec --dev: dev_reorg).
 */
export const RPC_NAMESPACES: readonly string[] = ['eth', 'net', 'web3', 'txpool', 'debug', 'admin', 'miner', 'dev'];

export const ACCOUNT = 'Account management';
export const RPC = 'RPC and API';
export const DEV = 'Development chain';
export const CHAIN = 'Chain and network';
export const GPO = 'Gas price oracle';
export const LOG = 'Logging and debugging';
export const METRICS = 'Metrics';
export const P2P = 'Peer-to-peer';
export const PERF = 'Performance';
export const ROLLUP = 'Rollup';
export const STATE = 'State and history';
export const TXPOOL = 'Transaction pool';
export const MISC = 'Miscellaneous';

export const HTTP_SCHEMES = ['http', 'https'] as const;

/** A fork override of section 2.7: a timestamp, default 0 (use the bundled activation). */
export function override(fork: string, title: string, toml: string): FlagSpec {
  return {
    name: `override.${fork}`,
    kind: 'uint',
    default: 0,
    help: `Override the bundled ${title} fork activation timestamp`,
    category: CHAIN,
    toml,
    implemented: true,
  };
}
