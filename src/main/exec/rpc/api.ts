// Registers tern-exec's user namespaces (eth, net, web3, debug) on an RPC registry; the listeners pick what they
// offer with --http.api / --ws.api (IPC offers everything, as geth does).
import { arch, platform } from 'node:os';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import { buildInfo } from '../../common/version.js';
import type { AccountBackend } from '../accounts/backend.js';
import { AccountManager } from '../accounts/manager.js';
import type { HeadEvents } from '../chain/headEvents.js';
import type { RollupEthParts } from '../rollup/ethParts.js';
import type { TernTxPool } from '../txpool/pool.js';
import { accountsEthMethods, localAccounts } from './accounts.js';
import { type AdminInfo, adminNamespace } from './admin.js';
import type { ExecRpcBackend } from './backend.js';
import { debugNamespace } from './debug.js';
import { ethNamespace } from './eth.js';
import type { FilterSystem } from './filters.js';
import { netNamespace } from './net.js';
import { rollupEthMethods } from './rollup.js';
import { poolEthMethods, type SendTxOptions, sendTxDefaults } from './sendTx.js';
import { registerSubscriptions } from './subscriptions.js';
import { txpoolNamespace } from './txpool.js';
import { web3Namespace } from './web3.js';

/** geth's client version shape, `Name/vVersion/os-arch/runtime`: `tern-exec/v0.1.0-unstable-1a2b3c4d/linux-x64/node20.19.0`. */
export function clientVersion(): string {
  const info = buildInfo();
  const version = info.commit ? `${info.version}-unstable-${info.commit.slice(0, 8)}` : info.version;
  return `tern-exec/v${version}/${platform()}-${arch()}/node${process.versions.node}`;
}

/** What the pool-backed parts of the RPC need (absent in read-only setups: those methods answer -32601). */
export interface ExecRpcPoolParts {
  pool: TernTxPool;
  heads: HeadEvents;
  filters: FilterSystem;
  sendTx?: Partial<SendTxOptions> | undefined;
  /** The node's accounts (eth_accounts, eth_sign, eth_signTransaction, eth_sendTransaction): the keystore or --signer. */
  accounts?: AccountManager | AccountBackend | undefined;
  /** The rollup flags' changes to the eth namespace (sequencer forwarding, conditionals, historical RPC). */
  rollup?: RollupEthParts | undefined;
}

export function registerExecApis(
  registry: RpcRegistry,
  backend: ExecRpcBackend,
  parts?: ExecRpcPoolParts,
  admin?: AdminInfo,
): RpcRegistry {
  if (admin) registry.registerNamespace('admin', adminNamespace(backend, admin));
  let eth = ethNamespace(backend);
  if (parts) {
    const manager = parts.accounts instanceof AccountManager ? localAccounts(parts.accounts) : parts.accounts;
    const sendTx = { ...sendTxDefaults, ...parts.sendTx };
    if (manager)
      sendTx.accounts = () => manager.knownAccounts().map((a) => Uint8Array.from(Buffer.from(a.slice(2), 'hex')));
    eth = {
      ...eth,
      ...poolEthMethods(eth, parts.pool, sendTx),
      ...parts.filters.namespace(),
    };
    if (manager)
      eth = {
        ...eth,
        ...accountsEthMethods(eth, manager, { chainId: backend.config.chainId, txFeeCap: sendTx.txFeeCap }),
      };
    if (parts.rollup) eth = { ...eth, ...rollupEthMethods(eth, parts.rollup, sendTx) };
    registry.registerNamespace('txpool', txpoolNamespace(parts.pool));
    registerSubscriptions(registry, backend, parts.heads, parts.pool);
  }
  return registry
    .registerNamespace('eth', eth)
    .registerNamespace(
      'net',
      netNamespace({
        networkId: backend.networkId,
        chainId: backend.config.chainId,
        ...(admin?.network ? { peerCount: () => admin.network?.peerCount() ?? 0 } : {}),
      }),
    )
    .registerNamespace('web3', web3Namespace(backend.clientVersion))
    .registerNamespace('debug', debugNamespace(backend));
}
