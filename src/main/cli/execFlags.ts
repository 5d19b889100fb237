// tern-exec's command line: every flag of op-geth v1.101603.3-rc.3 as the seed document lists it (sections 2.1 and
// 2.4-2.15), with its kind, default, help, heading and TOML key, and the sub-commands. Parsing, --help, the README,
// environment variables (TERN_EXEC_*) and the TOML config file all derive from this table.
//
// TOML keys follow geth's config file (`geth dumpconfig`: sections Eth, Node, Node.P2P, Metrics, Ethstats) wherever
// geth keeps the setting there; settings geth only takes as flags get keys in the sections Log, Pprof, Dev and Tern.
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FlagSpec, FlagValue, ProgramSpec, SubcommandSpec } from './flag.js';
import { NETWORK_NAMES } from './networks.js';

// ---------------------------------------------------------------------------------------------------------------
// Checks of the special value formats. Each gets the parsed value of its flag's kind and returns a message (without
// the flag name) when the value is wrong.

const HOSTNAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const UINT64_MAX = (1n << 64n) - 1n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function isHostName(text: string): boolean {
  return isIP(text) !== 0 || HOSTNAME.test(text);
}

function isPortText(text: string, allowZero: boolean): boolean {
  if (!/^\d{1,5}$/.test(text)) return false;
  const n = Number(text);
  return n <= 65535 && (allowZero || n > 0);
}

/** `host:port` where host is an IPv4 address, a bracketed IPv6 address or (when allowed) a host name. */
function splitHostPort(text: string): [string, string] | undefined {
  const v6 = /^\[([^\]]+)\]:([^:]*)$/.exec(text);
  if (v6) return isIP(v6[1] as string) === 6 ? [v6[1] as string, v6[2] as string] : undefined;
  const i = text.lastIndexOf(':');
  if (i <= 0) return undefined;
  const host = text.slice(0, i);
  if (host.includes(':')) return undefined; // an IPv6 address must be bracketed
  return [host, text.slice(i + 1)];
}

function items(value: FlagValue): string[] {
  return Array.isArray(value) ? (value as string[]) : [String(value)];
}

/** `--nat`: `any`, `none`, `upnp`, `pmp`, `pmp:<IP>`, `extip:<IP>`, `stun:<IP:PORT>`. */
export function checkNat(value: FlagValue): string | undefined {
  const s = String(value).trim();
  if (s === 'any' || s === 'none' || s === 'upnp' || s === 'pmp') return undefined;
  const usage = 'expected any, none, upnp, pmp, pmp:<IP>, extip:<IP> or stun:<IP:PORT>';
  const i = s.indexOf(':');
  if (i < 0) return `unknown NAT mechanism "${s}" (${usage})`;
  const mech = s.slice(0, i);
  const arg = s.slice(i + 1);
  if (mech === 'pmp' || mech === 'extip') {
    return isIP(arg) !== 0 ? undefined : `"${arg}" is not an IP address (${usage})`;
  }
  if (mech === 'stun') {
    const hp = splitHostPort(arg);
    if (hp === undefined || isIP(hp[0]) === 0 || !isPortText(hp[1], false)) {
      return `"${arg}" is not an IP:PORT STUN server address (${usage})`;
    }
    return undefined;
  }
  return `unknown NAT mechanism "${mech}" (${usage})`;
}

/** `--ethstats`: `nodename:secret@host:port`. */
export function checkEthstats(value: FlagValue): string | undefined {
  const s = String(value).trim();
  const usage = 'expected nodename:secret@host:port';
  const at = s.indexOf('@');
  if (at < 0) return `missing "@host:port" (${usage})`;
  const cred = s.slice(0, at);
  const colon = cred.indexOf(':');
  if (colon <= 0) return `missing node name or secret before "@" (${usage})`;
  if (colon === cred.length - 1) return `empty secret (${usage})`;
  const hp = splitHostPort(s.slice(at + 1));
  if (hp === undefined || !isHostName(hp[0])) return `"${s.slice(at + 1)}" is not host:port (${usage})`;
  if (!isPortText(hp[1], false)) return `"${hp[1]}" is not a port (${usage})`;
  return undefined;
}

/** `--eth.requiredblocks`: comma list of `<number>=<0x hash>`. */
export function checkRequiredBlocks(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^(\d+)=(0x[0-9a-fA-F]{64})$/.exec(item);
    if (!m) return `"${item}" is not <number>=<0x-prefixed 32-byte hash>`;
    if (BigInt(m[1] as string) > UINT64_MAX) return `block number ${m[1]} is out of range`;
  }
  return undefined;
}

/** `--log.vmodule`: comma list of `<pattern>=<level>`, level 0-5. */
export function checkVmodule(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^([^=\s]+)=(\S*)$/.exec(item);
    if (!m) return `"${item}" is not <pattern>=<level>`;
    if (!/^[0-5]$/.test(m[2] as string)) return `"${m[2]}" in "${item}" is not a level 0-5`;
  }
  return undefined;
}

/** `--metrics.tsdb.tags`: comma list of `key=value`. */
export function checkTags(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^([^=]*)=([^=]*)$/.exec(item);
    if (!m || (m[1] as string).trim() === '' || (m[2] as string).trim() === '') return `"${item}" is not key=value`;
  }
  return undefined;
}

/** `--txpool.locals`: comma list of 0x-prefixed 20-byte addresses. */
export function checkAddresses(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(item)) return `"${item}" is not a 0x-prefixed 20-byte account address`;
  }
  return undefined;
}

/** `--nodekeyhex`: a usable secp256k1 private key (after the hex32 kind has normalised it to 0x + 64 hex). */
export function checkNodeKey(value: FlagValue): string | undefined {
  const k = BigInt(String(value));
  return k > 0n && k < SECP256K1_N ? undefined : 'not a valid secp256k1 private key (must be 0 < key < curve order)';
}

/** `--bootnodes`: comma list of `enode://<128 hex>@<host>:<port>[?discport=<port>]` URLs or `enr:` records. */
export function checkBootnodes(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    if (/^enr:[A-Za-z0-9_-]+$/.test(item)) continue;
    const m = /^enode:\/\/[0-9a-fA-F]{128}@([^?]+?)(\?discport=(\d+))?$/.exec(item);
    const hp = m ? splitHostPort(m[1] as string) : undefined;
    if (
      m === null ||
      hp === undefined ||
      !isHostName(hp[0]) ||
      !isPortText(hp[1], true) ||
      (m[3] !== undefined && !isPortText(m[3], true))
    ) {
      return `"${item}" is not an enode://<node id>@<host>:<port> URL or an enr: record`;
    }
  }
  return undefined;
}

/** `--discovery.dns`: comma list of `enrtree://<public key>@<domain>`. */
export function checkDnsDiscovery(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^enrtree:\/\/[A-Za-z2-7]+@(.+)$/.exec(item);
    if (!m || !HOSTNAME.test(m[1] as string)) return `"${item}" is not an enrtree://<public key>@<domain> URL`;
  }
  return undefined;
}

/** `--http.rpcprefix`, `--ws.rpcprefix`: a URL path starting with `/`, without `?` or `#`. */
export function checkRpcPrefix(value: FlagValue): string | undefined {
  const s = String(value);
  if (s === '') return undefined;
  if (!s.startsWith('/')) return `path prefix "${s}" must start with "/"`;
  if (/[?#]/.test(s)) return `path prefix "${s}" may not contain "?" or "#"`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * RPC namespaces op-geth serves over HTTP and WS (personal and les are gone upstream; engine is authrpc-only), and
 * `dev`, which geth serves in --dev mode (tern-exec --dev: dev_reorg).
 */
export const RPC_NAMESPACES: readonly string[] = ['eth', 'net', 'web3', 'txpool', 'debug', 'admin', 'miner', 'dev'];

const ACCOUNT = 'Account management';
const RPC = 'RPC and API';
const DEV = 'Development chain';
const CHAIN = 'Chain and network';
const GPO = 'Gas price oracle';
const LOG = 'Logging and debugging';
const METRICS = 'Metrics';
const P2P = 'Peer-to-peer';
const PERF = 'Performance';
const ROLLUP = 'Rollup';
const STATE = 'State and history';
const TXPOOL = 'Transaction pool';
const MISC = 'Miscellaneous';

const HTTP_SCHEMES = ['http', 'https'] as const;

/** A fork override of section 2.7: a timestamp, default 0 (use the bundled activation). */
function override(fork: string, title: string, toml: string): FlagSpec {
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

const FLAGS: readonly FlagSpec[] = [
  // ---- 2.1 conventions (meta flags) ----
  {
    name: 'help',
    aliases: ['h'],
    kind: 'bool',
    default: false,
    help: 'Show help',
    category: MISC,
    implemented: true,
  },
  {
    name: 'version',
    aliases: ['v'],
    kind: 'bool',
    default: false,
    help: 'Print the version',
    category: MISC,
    implemented: true,
  },
  {
    name: 'header',
    aliases: ['H'],
    kind: 'header',
    help: 'Custom header ("Name: Value") sent to the RPC server by --remotedb and the attach console; may be given several times',
    category: MISC,
    repeatable: true,
    implemented: true,
  },
  {
    name: 'config',
    kind: 'path',
    help: 'TOML configuration file (a template is printed by the dumpconfig command)',
    category: MISC,
    implemented: true,
  },

  // ---- 2.4 Account management ----
  {
    name: 'keystore',
    kind: 'path',
    defaultNote: 'inside datadir',
    help: 'Keystore directory',
    category: ACCOUNT,
    toml: 'Node.KeyStoreDir',
    implemented: true,
  },
  {
    name: 'lightkdf',
    kind: 'bool',
    default: false,
    help: 'Reduce key-derivation RAM and CPU usage at some cost in KDF strength',
    category: ACCOUNT,
    toml: 'Node.UseLightweightKDF',
    implemented: true,
  },
  {
    name: 'password',
    kind: 'path',
    help: 'Password file for non-interactive password input',
    category: ACCOUNT,
    toml: 'Tern.PasswordFile',
    implemented: true,
  },
  {
    name: 'pcscdpath',
    kind: 'path',
    default: '/run/pcscd/pcscd.comm',
    help: 'Path to the smartcard daemon (pcscd) socket',
    category: ACCOUNT,
    toml: 'Node.SmartCardDaemonPath',
    implemented: false,
  },
  {
    name: 'signer',
    kind: 'string',
    help: 'External signer (URL or path to an IPC endpoint)',
    category: ACCOUNT,
    toml: 'Node.ExternalSigner',
    implemented: true,
  },
  {
    name: 'usb',
    kind: 'bool',
    default: false,
    help: 'Monitor and manage USB hardware wallets',
    category: ACCOUNT,
    toml: 'Node.USB',
    implemented: false,
  },

  // ---- 2.5 RPC and API ----
  {
    name: 'authrpc.addr',
    kind: 'host',
    default: 'localhost',
    help: 'Listening address of the authenticated API (engine API)',
    category: RPC,
    toml: 'Node.AuthAddr',
    implemented: true,
  },
  {
    name: 'authrpc.port',
    kind: 'port',
    default: 8551,
    help: 'Listening port of the authenticated API',
    category: RPC,
    toml: 'Node.AuthPort',
    implemented: true,
  },
  {
    name: 'authrpc.jwtsecret',
    kind: 'path',
    help: 'Path to the hex-encoded 32-byte JWT secret, identical to the consensus node’s',
    category: RPC,
    toml: 'Node.JWTSecret',
    implemented: true,
  },
  {
    name: 'authrpc.vhosts',
    kind: 'list',
    default: ['localhost'],
    help: 'Comma-separated virtual hostnames accepted by the authenticated API (server enforced; * accepts all)',
    category: RPC,
    toml: 'Node.AuthVirtualHosts',
    implemented: true,
  },
  {
    name: 'http',
    kind: 'bool',
    default: false,
    help: 'Enable the HTTP-RPC server',
    category: RPC,
    toml: 'Tern.HTTPEnabled',
    implemented: true,
  },
  {
    name: 'http.addr',
    kind: 'host',
    default: 'localhost',
    help: 'HTTP-RPC server listening interface',
    category: RPC,
    toml: 'Node.HTTPHost',
    implemented: true,
  },
  {
    name: 'http.port',
    kind: 'port',
    default: 8545,
    help: 'HTTP-RPC server listening port',
    category: RPC,
    toml: 'Node.HTTPPort',
    implemented: true,
  },
  {
    name: 'http.api',
    kind: 'enumList',
    values: RPC_NAMESPACES,
    help: 'APIs offered over the HTTP-RPC interface (comma-separated, e.g. eth,net,web3)',
    category: RPC,
    toml: 'Node.HTTPModules',
    implemented: true,
  },
  {
    name: 'http.corsdomain',
    kind: 'list',
    help: 'Comma-separated domains from which to accept cross-origin requests (browser enforced)',
    category: RPC,
    toml: 'Node.HTTPCors',
    implemented: true,
  },
  {
    name: 'http.vhosts',
    kind: 'list',
    default: ['localhost'],
    help: 'Comma-separated virtual hostnames accepted by the HTTP-RPC server (server enforced; * accepts all)',
    category: RPC,
    toml: 'Node.HTTPVirtualHosts',
    implemented: true,
  },
  {
    name: 'http.rpcprefix',
    kind: 'string',
    help: 'HTTP path prefix on which JSON-RPC is served; use / to serve on all paths',
    category: RPC,
    toml: 'Node.HTTPPathPrefix',
    implemented: true,
    check: checkRpcPrefix,
  },
  {
    name: 'ws',
    kind: 'bool',
    default: false,
    help: 'Enable the WS-RPC server',
    category: RPC,
    toml: 'Tern.WSEnabled',
    implemented: true,
  },
  {
    name: 'ws.addr',
    kind: 'host',
    default: 'localhost',
    help: 'WS-RPC server listening interface',
    category: RPC,
    toml: 'Node.WSHost',
    implemented: true,
  },
  {
    name: 'ws.port',
    kind: 'port',
    default: 8546,
    help: 'WS-RPC server listening port',
    category: RPC,
    toml: 'Node.WSPort',
    implemented: true,
  },
  {
    name: 'ws.api',
    kind: 'enumList',
    values: RPC_NAMESPACES,
    help: 'APIs offered over the WS-RPC interface (comma-separated)',
    category: RPC,
    toml: 'Node.WSModules',
    implemented: true,
  },
  {
    name: 'ws.origins',
    kind: 'list',
    help: 'Comma-separated origins from which to accept websocket requests',
    category: RPC,
    toml: 'Node.WSOrigins',
    implemented: true,
  },
  {
    name: 'ws.rpcprefix',
    kind: 'string',
    help: 'HTTP path prefix on which JSON-RPC is served over WS; use / to serve on all paths',
    category: RPC,
    toml: 'Node.WSPathPrefix',
    implemented: true,
    check: checkRpcPrefix,
  },
  {
    name: 'graphql',
    kind: 'bool',
    default: false,
    help: 'Enable GraphQL on the HTTP-RPC server (requires the HTTP server to be enabled)',
    category: RPC,
    toml: 'Tern.GraphQLEnabled',
    implemented: false,
  },
  {
    name: 'graphql.corsdomain',
    kind: 'list',
    help: 'Comma-separated domains from which to accept GraphQL cross-origin requests (browser enforced)',
    category: RPC,
    toml: 'Node.GraphQLCors',
    implemented: false,
  },
  {
    name: 'graphql.vhosts',
    kind: 'list',
    default: ['localhost'],
    help: 'Comma-separated virtual hostnames accepted by GraphQL (server enforced; * accepts all)',
    category: RPC,
    toml: 'Node.GraphQLVirtualHosts',
    implemented: false,
  },
  {
    name: 'ipcdisable',
    kind: 'bool',
    default: false,
    help: 'Disable the IPC-RPC server',
    category: RPC,
    toml: 'Tern.IPCDisabled',
    implemented: true,
  },
  {
    name: 'ipcpath',
    kind: 'path',
    help: 'IPC socket filename within the datadir (an explicit path escapes it)',
    category: RPC,
    toml: 'Node.IPCPath',
    implemented: true,
  },
  {
    name: 'exec',
    kind: 'string',
    help: 'Execute a JavaScript statement (console)',
    category: RPC,
    implemented: true,
  },
  {
    name: 'jspath',
    kind: 'path',
    default: '.',
    help: 'JavaScript root path for loadScript (console)',
    category: RPC,
    implemented: true,
  },
  {
    name: 'preload',
    kind: 'list',
    help: 'Comma-separated JavaScript files to preload into the console',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.allow-unprotected-txs',
    kind: 'bool',
    default: false,
    help: 'Allow transactions not signed per EIP-155 (not replay-protected) to be submitted over RPC',
    category: RPC,
    toml: 'Node.AllowUnprotectedTxs',
    implemented: true,
  },
  {
    name: 'rpc.batch-request-limit',
    kind: 'uint',
    default: 1000,
    help: 'Maximum number of requests in a batch',
    category: RPC,
    toml: 'Node.BatchRequestLimit',
    implemented: true,
  },
  {
    name: 'rpc.batch-response-max-size',
    kind: 'uint',
    default: 25000000,
    help: 'Maximum number of bytes returned from a batched call',
    category: RPC,
    toml: 'Node.BatchResponseMaxSize',
    implemented: true,
  },
  {
    name: 'rpc.evmtimeout',
    kind: 'duration',
    default: 5000,
    help: 'Timeout for eth_call (0 = infinite)',
    category: RPC,
    toml: 'Eth.RPCEVMTimeout',
    implemented: true,
  },
  {
    name: 'rpc.gascap',
    kind: 'uint',
    default: 50000000,
    help: 'Gas cap for eth_call and estimateGas (0 = infinite)',
    category: RPC,
    toml: 'Eth.RPCGasCap',
    implemented: true,
  },
  {
    name: 'rpc.txfeecap',
    kind: 'float',
    min: 0,
    default: 1,
    help: 'Cap, in ether, on the fee of transactions sent through RPC (0 = no cap)',
    category: RPC,
    toml: 'Eth.RPCTxFeeCap',
    implemented: true,
  },

  // ---- 2.6 Development chain ----
  {
    name: 'dev',
    kind: 'bool',
    default: false,
    help: 'Ephemeral proof-of-authority network with a pre-funded developer account and mining enabled',
    category: DEV,
    toml: 'Dev.Enabled',
    implemented: true,
  },
  {
    name: 'dev.gaslimit',
    kind: 'uint',
    default: 11500000,
    help: 'Initial block gas limit of the development chain',
    category: DEV,
    toml: 'Dev.GasLimit',
    implemented: true,
  },
  {
    name: 'dev.period',
    kind: 'uint',
    default: 0,
    help: 'Block period of the development chain (0 = mine only when a transaction is pending)',
    category: DEV,
    toml: 'Dev.Period',
    implemented: true,
  },
  {
    name: 'dev.beacon.addr',
    kind: 'host',
    default: 'localhost',
    help: "Listening address of the development chain's beacon API (genesis, spec, blob sidecars and blobs of its blocks)",
    category: DEV,
    toml: 'Tern.DevBeaconAddr',
    implemented: true,
  },
  {
    name: 'dev.beacon.port',
    kind: 'port',
    default: 5052,
    help: "Listening port of the development chain's beacon API (0 picks a free port; the URL is logged)",
    category: DEV,
    toml: 'Tern.DevBeaconPort',
    implemented: true,
  },

  // ---- 2.7 Chain and network ----
  {
    name: 'bloomfilter.size',
    kind: 'uint',
    default: 2048,
    help: 'Memory, in MB, for the bloom filter used in pruning',
    category: CHAIN,
    toml: 'Tern.BloomFilterSize',
    implemented: true,
  },
  {
    name: 'datadir',
    kind: 'path',
    default: join(homedir(), '.tern-exec'),
    defaultNote: 'see 2.3',
    help: 'Data directory for the databases and keystore',
    category: CHAIN,
    toml: 'Node.DataDir',
    implemented: true,
  },
  {
    name: 'datadir.ancient',
    kind: 'path',
    defaultNote: 'inside chaindata',
    help: 'Root directory of ancient data',
    category: CHAIN,
    toml: 'Eth.DatabaseFreezer',
    implemented: true,
  },
  {
    name: 'datadir.era',
    kind: 'path',
    defaultNote: 'inside ancient/chain',
    help: 'Root directory of era1 history',
    category: CHAIN,
    toml: 'Eth.DatabaseEra',
    implemented: false,
  },
  {
    name: 'datadir.minfreedisk',
    kind: 'uint',
    defaultNote: '--cache.gc converted to MB',
    help: 'Minimum free disk space in MB; reaching it triggers an automatic shutdown (0 = disabled)',
    category: CHAIN,
    toml: 'Tern.MinFreeDisk',
    implemented: true,
  },
  {
    name: 'db.engine',
    kind: 'enum',
    // geth's two engines are accepted as values so the error can say what tern offers instead.
    values: ['lmdb', 'memory', 'pebble', 'leveldb'],
    help: "Backing database implementation: lmdb (tern's default) or memory (ephemeral); geth's pebble and leveldb are refused with an error naming these",
    category: CHAIN,
    toml: 'Node.DBEngine',
    implemented: true,
  },
  {
    name: 'eth.requiredblocks',
    kind: 'list',
    help: 'Comma-separated <number>=<hash> block mappings that peers must have to be accepted',
    category: CHAIN,
    toml: 'Tern.RequiredBlocks',
    implemented: false,
    check: checkRequiredBlocks,
  },
  {
    name: 'exitwhensynced',
    kind: 'bool',
    default: false,
    help: 'Exit after block synchronisation completes: tern-exec stops at the first canonical head (moved by the consensus node or an import) less than ten minutes old, as geth after a sync; ignored with --dev',
    category: CHAIN,
    toml: 'Tern.ExitWhenSynced',
    implemented: true,
  },
  {
    name: 'mainnet',
    kind: 'bool',
    default: false,
    help: 'Main public layer-1 network',
    category: CHAIN,
    toml: 'Tern.Mainnet',
    implemented: false,
  },
  {
    name: 'sepolia',
    kind: 'bool',
    default: false,
    help: 'Sepolia public test network',
    category: CHAIN,
    toml: 'Tern.Sepolia',
    implemented: false,
  },
  {
    name: 'holesky',
    kind: 'bool',
    default: false,
    help: 'Holesky pre-configured proof-of-stake test network',
    category: CHAIN,
    toml: 'Tern.Holesky',
    implemented: false,
  },
  {
    name: 'hoodi',
    kind: 'bool',
    default: false,
    help: 'Hoodi pre-configured proof-of-stake test network',
    category: CHAIN,
    toml: 'Tern.Hoodi',
    implemented: false,
  },
  {
    name: 'networkid',
    kind: 'uint',
    default: 0,
    help: 'Explicit network id (0 = the chain id); for test networks use the network flags instead',
    category: CHAIN,
    toml: 'Eth.NetworkId',
    implemented: true,
  },
  {
    name: 'stack-network',
    aliases: ['beta.stack-network'],
    kind: 'enum',
    values: NETWORK_NAMES,
    help: 'Pre-configured rollup network (<chain>-<environment>, the same set as tern-node’s --network)',
    category: CHAIN,
    toml: 'Tern.StackNetwork',
    implemented: true,
  },
  {
    name: 'snapshot',
    kind: 'bool',
    default: true,
    help:
      "Enable the snapshot-database mode: tern's snapshot is its flat state, kept warm across blocks within " +
      '--cache.snapshot; false starts every block from a cold flat state and gives the share to the trie cache',
    category: CHAIN,
    toml: 'Tern.Snapshot',
    implemented: true,
  },
  {
    name: 'synctarget',
    kind: 'hash',
    help: 'Block hash to full sync to (development testing)',
    category: CHAIN,
    toml: 'Tern.SyncTarget',
    implemented: false,
  },
  // Fork overrides: geth keeps these in its [Eth] table (OverrideCancun, OverrideOptimismCanyon, …).
  override('cancun', 'Cancun', 'Eth.OverrideCancun'),
  override('canyon', 'Canyon', 'Eth.OverrideOptimismCanyon'),
  override('ecotone', 'Ecotone', 'Eth.OverrideOptimismEcotone'),
  override('fjord', 'Fjord', 'Eth.OverrideOptimismFjord'),
  override('granite', 'Granite', 'Eth.OverrideOptimismGranite'),
  override('holocene', 'Holocene', 'Eth.OverrideOptimismHolocene'),
  override('interop', 'Interop', 'Eth.OverrideOptimismInterop'),
  override('isthmus', 'Isthmus', 'Eth.OverrideOptimismIsthmus'),
  override('jovian', 'Jovian', 'Eth.OverrideOptimismJovian'),
  override('osaka', 'Osaka', 'Eth.OverrideOsaka'),
  override('verkle', 'Verkle', 'Eth.OverrideVerkle'),

  // ---- 2.8 Gas price oracle ----
  {
    name: 'gpo.blocks',
    kind: 'uint',
    default: 20,
    help: 'Number of recent blocks to check for gas prices',
    category: GPO,
    toml: 'Eth.GPO.Blocks',
    implemented: true,
  },
  {
    name: 'gpo.ignoreprice',
    kind: 'uint',
    default: 2,
    help: 'Gas price below which the oracle ignores transactions',
    category: GPO,
    toml: 'Eth.GPO.IgnorePrice',
    implemented: true,
  },
  {
    name: 'gpo.maxprice',
    kind: 'uint',
    default: 500000000000,
    help: 'Maximum priority fee (gas price before London) the oracle recommends',
    category: GPO,
    toml: 'Eth.GPO.MaxPrice',
    implemented: true,
  },
  {
    name: 'gpo.minsuggestedpriorityfee',
    kind: 'uint',
    default: 1000000,
    help: 'Minimum priority fee suggested; used on rollup chains when blocks are not full',
    category: GPO,
    toml: 'Eth.GPO.MinSuggestedPriorityFee',
    implemented: true,
  },
  {
    name: 'gpo.percentile',
    kind: 'uint',
    max: 100,
    default: 60,
    help: 'Suggested gas price is this percentile of recent transaction gas prices',
    category: GPO,
    toml: 'Eth.GPO.Percentile',
    implemented: true,
  },

  // ---- 2.9 Logging and debugging ----
  {
    name: 'verbosity',
    kind: 'uint',
    min: 0,
    max: 5,
    default: 3,
    help: 'Log level: 0=silent, 1=error, 2=warn, 3=info, 4=debug, 5=detail',
    category: LOG,
    toml: 'Log.Verbosity',
    implemented: true,
  },
  {
    name: 'log.format',
    kind: 'enum',
    values: ['json', 'logfmt', 'terminal'],
    help: 'Log format',
    category: LOG,
    toml: 'Log.Format',
    implemented: true,
  },
  {
    name: 'log.file',
    kind: 'path',
    help: 'Write logs to this file',
    category: LOG,
    toml: 'Log.File',
    implemented: true,
  },
  {
    name: 'log.rotate',
    kind: 'bool',
    default: false,
    help: 'Enable log file rotation',
    category: LOG,
    toml: 'Log.Rotate',
    implemented: true,
  },
  {
    name: 'log.compress',
    kind: 'bool',
    default: false,
    help: 'Compress rotated log files',
    category: LOG,
    toml: 'Log.Compress',
    implemented: true,
  },
  {
    name: 'log.maxage',
    kind: 'uint',
    default: 30,
    help: 'Days a log file is retained',
    category: LOG,
    toml: 'Log.MaxAge',
    implemented: true,
  },
  {
    name: 'log.maxbackups',
    kind: 'uint',
    default: 10,
    help: 'Number of log files retained',
    category: LOG,
    toml: 'Log.MaxBackups',
    implemented: true,
  },
  {
    name: 'log.maxsize',
    kind: 'uint',
    default: 100,
    help: 'Maximum size of one log file in MB',
    category: LOG,
    toml: 'Log.MaxSize',
    implemented: true,
  },
  {
    name: 'log.vmodule',
    kind: 'list',
    help: 'Per-module verbosity: comma-separated <pattern>=<level> (e.g. eth/*=5,p2p=4)',
    category: LOG,
    toml: 'Log.VModule',
    implemented: true,
    check: checkVmodule,
  },
  {
    name: 'go-execution-trace',
    kind: 'path',
    help: 'Write an execution trace to this file. Node has no Go execution tracer: tern-exec refuses it and names --pprof.cpuprofile instead',
    category: LOG,
    toml: 'Pprof.ExecutionTrace',
    implemented: true,
  },
  {
    name: 'nocompaction',
    kind: 'bool',
    default: false,
    help: 'Disable database compaction after import (accepted; LMDB, a B+tree reusing freed pages in place, has no compaction to run)',
    category: LOG,
    toml: 'Tern.NoCompaction',
    implemented: true,
  },
  {
    name: 'pprof',
    kind: 'bool',
    default: false,
    help: 'Enable the profiling HTTP server',
    category: LOG,
    toml: 'Pprof.Enabled',
    implemented: true,
  },
  {
    name: 'pprof.addr',
    kind: 'host',
    default: '127.0.0.1',
    help: 'Profiling HTTP server listening interface',
    category: LOG,
    toml: 'Pprof.Addr',
    implemented: true,
  },
  {
    name: 'pprof.port',
    kind: 'port',
    default: 6060,
    help: 'Profiling HTTP server listening port',
    category: LOG,
    toml: 'Pprof.Port',
    implemented: true,
  },
  {
    name: 'pprof.blockprofilerate',
    kind: 'uint',
    default: 0,
    help: 'Block profiling rate (Go: ns blocked per sample). Node has no blocking profile: > 0 turns on the event-loop delay monitor behind /debug/pprof/block, resolution rate/1e6 ms (at least 1 ms)',
    category: LOG,
    toml: 'Pprof.BlockProfileRate',
    implemented: true,
  },
  {
    name: 'pprof.cpuprofile',
    kind: 'path',
    help: 'Write a CPU profile of every thread (main and worker pools, gzip pprof) to this file at exit',
    category: LOG,
    toml: 'Pprof.CPUProfile',
    implemented: true,
  },
  {
    name: 'pprof.memprofilerate',
    kind: 'uint',
    default: 524288,
    help: 'Memory profiling rate: bytes between samples of the V8 sampling heap profiler behind /debug/pprof/heap and allocs (as Go MemProfileRate); 0 turns heap profiles off',
    category: LOG,
    toml: 'Pprof.MemProfileRate',
    implemented: true,
  },
  {
    name: 'remotedb',
    kind: 'url',
    schemes: ['http', 'https', 'ws', 'wss'],
    help: 'URL of a remote database',
    category: LOG,
    toml: 'Tern.RemoteDB',
    implemented: false,
  },
  {
    name: 'vmdebug',
    kind: 'bool',
    default: false,
    help: 'Record information useful for VM and contract debugging: the input of every KECCAK256 opcode of imported and built blocks, as keccak preimages served by debug_preimage',
    category: LOG,
    toml: 'Eth.EnablePreimageRecording',
    implemented: true,
  },
  {
    name: 'vmtrace',
    kind: 'string',
    help: 'Name of a live tracer run over every transaction of block import and building (costly): noop, or callTracer (one JSON line per transaction into the file given as "path" in --vmtrace.jsonconfig; options onlyTopCall, withLog)',
    category: LOG,
    toml: 'Eth.VMTrace',
    implemented: true,
  },
  {
    name: 'vmtrace.jsonconfig',
    kind: 'json',
    default: {},
    help: 'Tracer configuration (JSON), e.g. {"path":"calls.jsonl","withLog":true} for --vmtrace callTracer',
    category: LOG,
    toml: 'Eth.VMTraceJsonConfig',
    implemented: true,
  },

  // ---- 2.10 Metrics ----
  {
    name: 'metrics',
    kind: 'bool',
    default: false,
    help: 'Enable metrics collection and reporting',
    category: METRICS,
    toml: 'Metrics.Enabled',
    implemented: true,
  },
  {
    name: 'metrics.addr',
    kind: 'host',
    help: 'Listening interface of the stand-alone metrics HTTP server (the server starts only when set)',
    category: METRICS,
    toml: 'Metrics.HTTP',
    implemented: true,
  },
  {
    name: 'metrics.port',
    kind: 'port',
    default: 6060,
    help: 'Metrics HTTP server listening port',
    category: METRICS,
    toml: 'Metrics.Port',
    implemented: true,
  },
  {
    name: 'metrics.expensive',
    kind: 'bool',
    default: false,
    help: 'Enable expensive metrics: per-task worker-pool wait and run histograms (pool_task_wait_seconds, pool_task_run_seconds by pool and task); needs --metrics',
    category: METRICS,
    toml: 'Metrics.EnabledExpensive',
    implemented: true,
  },
  {
    name: 'ethstats',
    kind: 'string',
    help: 'Reporting URL of a network-statistics service (nodename:secret@host:port)',
    category: METRICS,
    toml: 'Ethstats.URL',
    implemented: true,
    check: checkEthstats,
  },
  {
    name: 'metrics.tsdb',
    kind: 'bool',
    default: false,
    help: 'Push metrics to an external time-series database',
    category: METRICS,
    toml: 'Metrics.EnableInfluxDB',
    implemented: true,
  },
  {
    name: 'metrics.tsdbv2',
    kind: 'bool',
    default: false,
    help: 'Push metrics to an external time-series database, version 2',
    category: METRICS,
    toml: 'Metrics.EnableInfluxDBV2',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.endpoint',
    kind: 'url',
    schemes: HTTP_SCHEMES,
    default: 'http://localhost:8086',
    help: 'Time-series database API endpoint',
    category: METRICS,
    toml: 'Metrics.InfluxDBEndpoint',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.database',
    kind: 'string',
    default: 'tern-exec',
    defaultNote: '<client_name>',
    help: 'Time-series database name',
    category: METRICS,
    toml: 'Metrics.InfluxDBDatabase',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.bucket',
    kind: 'string',
    default: 'tern-exec',
    defaultNote: '<client_name>',
    help: 'Time-series database bucket name (v2 only)',
    category: METRICS,
    toml: 'Metrics.InfluxDBBucket',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.organization',
    kind: 'string',
    default: 'tern-exec',
    defaultNote: '<client_name>',
    help: 'Time-series database organisation name (v2 only)',
    category: METRICS,
    toml: 'Metrics.InfluxDBOrganization',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.username',
    kind: 'string',
    default: 'test',
    defaultNote: 'a placeholder value (omitted)',
    help: 'Time-series database user name',
    category: METRICS,
    toml: 'Metrics.InfluxDBUsername',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.password',
    kind: 'string',
    default: 'test',
    defaultNote: 'a placeholder value (omitted)',
    help: 'Time-series database password',
    category: METRICS,
    toml: 'Metrics.InfluxDBPassword',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.token',
    kind: 'string',
    default: 'test',
    defaultNote: 'a placeholder value (omitted)',
    help: 'Time-series database API token (v2 only)',
    category: METRICS,
    toml: 'Metrics.InfluxDBToken',
    implemented: true,
  },
  {
    name: 'metrics.tsdb.tags',
    kind: 'list',
    default: ['host=localhost'],
    help: 'Comma-separated key=value tags attached to all measurements',
    category: METRICS,
    toml: 'Metrics.InfluxDBTags',
    implemented: true,
    check: checkTags,
  },

  // ---- 2.11 Peer-to-peer ----
  {
    name: 'bootnodes',
    kind: 'list',
    help: 'Comma-separated enode URLs for P2P discovery bootstrap',
    category: P2P,
    toml: 'Node.P2P.BootstrapNodes',
    implemented: false,
    check: checkBootnodes,
  },
  {
    name: 'discovery.dns',
    kind: 'list',
    help: 'Comma-separated enrtree:// DNS discovery entry points (an empty string disables DNS discovery)',
    category: P2P,
    toml: 'Eth.EthDiscoveryURLs',
    implemented: false,
    check: checkDnsDiscovery,
  },
  {
    name: 'discovery.port',
    kind: 'port',
    default: 30303,
    help: 'UDP port for P2P discovery',
    category: P2P,
    toml: 'Node.P2P.DiscAddr',
    implemented: false,
  },
  {
    name: 'discovery.v4',
    aliases: ['discv4'],
    kind: 'bool',
    default: false,
    help: 'Enable discovery v4',
    category: P2P,
    toml: 'Node.P2P.DiscoveryV4',
    implemented: false,
  },
  {
    name: 'discovery.v5',
    aliases: ['discv5'],
    kind: 'bool',
    default: true,
    help: 'Enable discovery v5',
    category: P2P,
    toml: 'Node.P2P.DiscoveryV5',
    implemented: false,
  },
  {
    name: 'identity',
    kind: 'string',
    help: 'Custom node name',
    category: P2P,
    toml: 'Node.UserIdent',
    implemented: false,
  },
  {
    name: 'maxpeers',
    kind: 'uint',
    default: 50,
    help: 'Maximum number of peers (0 disables the network)',
    category: P2P,
    toml: 'Node.P2P.MaxPeers',
    implemented: false,
  },
  {
    name: 'maxpendpeers',
    kind: 'uint',
    default: 0,
    help: 'Maximum number of pending connection attempts (0 = defaults)',
    category: P2P,
    toml: 'Node.P2P.MaxPendingPeers',
    implemented: false,
  },
  {
    name: 'nat',
    kind: 'string',
    default: 'any',
    help: 'NAT port mapping: any, none, upnp, pmp, pmp:<IP>, extip:<IP> or stun:<IP:PORT>',
    category: P2P,
    toml: 'Node.P2P.NAT',
    implemented: false,
    check: checkNat,
  },
  {
    name: 'netrestrict',
    kind: 'cidrList',
    help: 'Restrict network communication to these comma-separated CIDR masks',
    category: P2P,
    toml: 'Node.P2P.NetRestrict',
    implemented: false,
  },
  {
    name: 'nodekey',
    kind: 'path',
    help: 'P2P node key file',
    category: P2P,
    toml: 'Tern.NodeKey',
    implemented: false,
  },
  {
    name: 'nodekeyhex',
    kind: 'hex32',
    help: 'P2P node key as hex (for testing)',
    category: P2P,
    toml: 'Tern.NodeKeyHex',
    implemented: false,
    check: checkNodeKey,
  },
  {
    name: 'nodiscover',
    kind: 'bool',
    default: false,
    help: 'Disable peer discovery',
    category: P2P,
    toml: 'Node.P2P.NoDiscovery',
    implemented: false,
  },
  {
    name: 'port',
    kind: 'port',
    default: 30303,
    help: 'Network listening port',
    category: P2P,
    toml: 'Node.P2P.ListenAddr',
    implemented: false,
  },

  // ---- 2.12 Performance ----
  {
    name: 'cache',
    kind: 'uint',
    default: 4096,
    defaultNote: '4096 for a mainnet full node; 128 in light mode',
    help: 'Megabytes of memory allocated to internal caching',
    category: PERF,
    toml: 'Tern.Cache',
    implemented: true,
  },
  {
    name: 'cache.blocklogs',
    kind: 'uint',
    default: 32,
    help: 'Size, in blocks, of the log cache for filtering',
    category: PERF,
    toml: 'Eth.FilterLogCacheSize',
    implemented: true,
  },
  {
    name: 'cache.database',
    kind: 'uint',
    max: 100,
    default: 50,
    help:
      'Percentage of the cache allowance for database I/O: a cache of decoded headers, blocks and receipts ' +
      '(LMDB reads go through the OS page cache), at most a quarter of the JS heap limit',
    category: PERF,
    toml: 'Tern.CacheDatabase',
    implemented: true,
  },
  {
    name: 'cache.gc',
    kind: 'uint',
    max: 100,
    default: 25,
    defaultNote: '25 full mode; 0 archive mode',
    help: 'Percentage of the cache allowance for trie pruning',
    category: PERF,
    toml: 'Tern.CacheGC',
    implemented: true,
  },
  {
    name: 'cache.noprefetch',
    kind: 'bool',
    default: false,
    help:
      'Disable heuristic state prefetch during block import (by default, on machines with more than 2 cores, ' +
      "`tern-exec import`'s trie hasher thread walks the account-trie paths of a block's senders and recipients " +
      'into its node cache while the block executes; with 2 cores or fewer it is off, its CPU slowed import)',
    category: PERF,
    toml: 'Eth.NoPrefetch',
    implemented: true,
  },
  {
    name: 'cache.preimages',
    kind: 'bool',
    default: false,
    help: 'Record the keccak preimages of trie keys (address and storage slot of every account and non-zero slot a block writes), served by debug_preimage; always on with --gcmode archive, as in geth',
    category: PERF,
    toml: 'Eth.Preimages',
    implemented: true,
  },
  {
    name: 'cache.snapshot',
    kind: 'uint',
    max: 100,
    default: 10,
    defaultNote: '10 full; 20 archive',
    help:
      'Percentage of the cache allowance for snapshot caching: the accounts, storage and code the block importer ' +
      'keeps warm across blocks (a quarter, at most 64 MiB, for code)',
    category: PERF,
    toml: 'Tern.CacheSnapshot',
    implemented: true,
  },
  {
    name: 'cache.trie',
    kind: 'uint',
    max: 100,
    default: 15,
    defaultNote: '15 full; 30 archive',
    help:
      'Percentage of the cache allowance for trie caching: the LRU cache of trie nodes read from the database, ' +
      "kept by the trie hasher that computes each block's state root",
    category: PERF,
    toml: 'Tern.CacheTrie',
    implemented: true,
  },
  {
    name: 'crypto.kzg',
    kind: 'enum',
    values: ['gokzg', 'ckzg'],
    default: 'gokzg',
    help: 'KZG library implementation (gokzg recommended). tern has one: the c-kzg binding; ckzg is checked to load at startup, gokzg maps to c-kzg (same functions and results)',
    category: PERF,
    toml: 'Tern.CryptoKZG',
    implemented: true,
  },
  {
    name: 'fdlimit',
    kind: 'uint',
    defaultNote: 'system fd limit',
    help:
      'Raise the open file descriptor limit to this value (capped at the hard limit, with a warning; by default ' +
      'raised to the hard limit)',
    category: PERF,
    toml: 'Tern.FDLimit',
    implemented: true,
  },

  // ---- 2.13 Rollup ----
  {
    name: 'rollup.computependingblock',
    kind: 'bool',
    default: false,
    help: 'Compute the pending block from the transaction pool (by default it equals the latest block)',
    category: ROLLUP,
    toml: 'Eth.Miner.RollupComputePendingBlock',
    implemented: true,
  },
  {
    name: 'rollup.disabletxpoolgossip',
    kind: 'bool',
    default: false,
    help: 'Disable transaction pool gossip',
    category: ROLLUP,
    toml: 'Eth.RollupDisableTxPoolGossip',
    implemented: true,
  },
  {
    name: 'rollup.enabletxpooladmission',
    kind: 'bool',
    default: false,
    help: 'Add RPC-submitted transactions to the pool (on by default when --rollup.sequencerhttp is not set)',
    category: ROLLUP,
    toml: 'Tern.RollupEnableTxPoolAdmission',
    implemented: true,
  },
  {
    name: 'rollup.halt',
    kind: 'enum',
    values: ['major', 'minor', 'patch', 'none'],
    defaultNote: 'unset',
    help: 'Halt on incompatible protocol version requirements of this level, signalled by the consensus node through the engine API',
    category: ROLLUP,
    toml: 'Eth.RollupHaltOnIncompatibleProtocolVersion',
    implemented: true,
  },
  {
    name: 'rollup.historicalrpc',
    kind: 'url',
    schemes: HTTP_SCHEMES,
    help: 'RPC endpoint for historical data',
    category: ROLLUP,
    toml: 'Eth.RollupHistoricalRPC',
    implemented: true,
  },
  {
    name: 'rollup.historicalrpctimeout',
    kind: 'duration',
    default: 5000,
    help: 'Timeout for historical RPC requests',
    category: ROLLUP,
    toml: 'Eth.RollupHistoricalRPCTimeout',
    implemented: true,
  },
  {
    name: 'rollup.interopmempoolfiltering',
    kind: 'bool',
    default: false,
    help: 'With interop, check transactions for interop validity before mempool admission (experimental)',
    category: ROLLUP,
    toml: 'Eth.InteropMempoolFiltering',
    implemented: true,
  },
  {
    name: 'rollup.interoprpc',
    kind: 'url',
    schemes: HTTP_SCHEMES,
    help: 'RPC endpoint for interop message verification (experimental)',
    category: ROLLUP,
    toml: 'Eth.InteropMessageRPC',
    implemented: true,
  },
  {
    name: 'rollup.sequencerhttp',
    kind: 'url',
    schemes: HTTP_SCHEMES,
    help: 'HTTP endpoint of the sequencer mempool',
    category: ROLLUP,
    toml: 'Eth.RollupSequencerHTTP',
    implemented: true,
  },
  {
    name: 'rollup.sequencertxconditionalcostratelimit',
    kind: 'uint',
    default: 5000,
    help: 'Maximum cost (storage lookups) allowed for conditional transactions per second',
    category: ROLLUP,
    toml: 'Eth.RollupSequencerTxConditionalCostRateLimit',
    implemented: true,
  },
  {
    name: 'rollup.sequencertxconditionalenabled',
    kind: 'bool',
    default: false,
    help: 'Serve eth_sendRawTransactionConditional and apply its constraints in the mempool and block building',
    category: ROLLUP,
    toml: 'Eth.RollupSequencerTxConditionalEnabled',
    implemented: true,
  },
  {
    name: 'rollup.superchain-upgrades',
    aliases: ['beta.rollup.superchain-upgrades'],
    kind: 'bool',
    default: true,
    help: 'Apply superchain-registry configuration changes to the local chain configuration',
    category: ROLLUP,
    toml: 'Eth.ApplySuperchainUpgrades',
    implemented: true,
  },

  // ---- 2.14 State and history ----
  {
    name: 'gcmode',
    kind: 'enum',
    values: ['full', 'archive'],
    default: 'full',
    help: 'Garbage collection mode (with --state.scheme=hash: full keeps the state of the last 128 blocks, archive all)',
    category: STATE,
    toml: 'Tern.GCMode',
    implemented: true,
  },
  {
    name: 'history.chain',
    kind: 'enum',
    values: ['all', 'postmerge'],
    default: 'all',
    help: 'Chain history retention',
    category: STATE,
    toml: 'Eth.HistoryMode',
    implemented: true,
  },
  {
    name: 'history.logs',
    kind: 'uint',
    default: 2350000,
    defaultNote: '2350000 (about a year)',
    help: 'Recent blocks kept in the log search index; the default is about a year (0 = entire chain)',
    category: STATE,
    toml: 'Eth.LogHistory',
    implemented: true,
  },
  {
    name: 'history.logs.disable',
    kind: 'bool',
    default: false,
    help: 'Do not maintain the log search index',
    category: STATE,
    toml: 'Eth.LogNoHistory',
    implemented: true,
  },
  {
    name: 'history.logs.export',
    kind: 'path',
    help: 'Export log index checkpoints to this file in source-file format',
    category: STATE,
    toml: 'Eth.LogExportCheckpoints',
    implemented: false,
  },
  {
    name: 'history.state',
    kind: 'uint',
    default: 90000,
    help: 'Recent blocks of state history kept; only with --state.scheme=path (0 = entire chain)',
    category: STATE,
    toml: 'Eth.StateHistory',
    implemented: true,
  },
  {
    name: 'history.transactions',
    kind: 'uint',
    default: 2350000,
    defaultNote: '2350000 (about a year)',
    help: 'Recent blocks kept in the transaction index; the default is about a year (0 = entire chain)',
    category: STATE,
    toml: 'Eth.TransactionHistory',
    implemented: true,
  },
  {
    name: 'state.scheme',
    kind: 'enum',
    values: ['hash', 'path'],
    help: 'State storage scheme; tern has one layout (trie nodes by hash beside a flat state): hash prunes by --gcmode, path keeps --history.state blocks; a database keeps the scheme it was created with (default path)',
    category: STATE,
    toml: 'Eth.StateScheme',
    implemented: true,
  },
  {
    name: 'syncmode',
    kind: 'enum',
    values: ['snap', 'full'],
    default: 'snap',
    help: 'Blockchain sync mode',
    category: STATE,
    toml: 'Eth.SyncMode',
    implemented: false,
  },

  // ---- 2.15 Transaction pool ----
  {
    name: 'blobpool.datacap',
    kind: 'uint',
    default: 2684354560,
    help: 'Soft limit, in bytes, of disk space for pending blob transactions',
    category: TXPOOL,
    toml: 'Eth.BlobPool.Datacap',
    implemented: true,
  },
  {
    name: 'blobpool.datadir',
    kind: 'path',
    default: 'blobpool',
    help: 'Directory for blob transaction storage',
    category: TXPOOL,
    toml: 'Eth.BlobPool.Datadir',
    implemented: true,
  },
  {
    name: 'blobpool.pricebump',
    kind: 'uint',
    default: 100,
    help: 'Price bump percentage needed to replace a blob transaction',
    category: TXPOOL,
    toml: 'Eth.BlobPool.PriceBump',
    implemented: true,
  },
  {
    name: 'txpool.accountqueue',
    kind: 'uint',
    default: 64,
    help: 'Maximum non-executable transaction slots per account',
    category: TXPOOL,
    toml: 'Eth.TxPool.AccountQueue',
    implemented: true,
  },
  {
    name: 'txpool.accountslots',
    kind: 'uint',
    default: 16,
    help: 'Minimum executable transaction slots guaranteed per account',
    category: TXPOOL,
    toml: 'Eth.TxPool.AccountSlots',
    implemented: true,
  },
  {
    name: 'txpool.globalqueue',
    kind: 'uint',
    default: 1024,
    help: 'Maximum non-executable transaction slots for all accounts',
    category: TXPOOL,
    toml: 'Eth.TxPool.GlobalQueue',
    implemented: true,
  },
  {
    name: 'txpool.globalslots',
    kind: 'uint',
    default: 5120,
    help: 'Maximum executable transaction slots for all accounts',
    category: TXPOOL,
    toml: 'Eth.TxPool.GlobalSlots',
    implemented: true,
  },
  {
    name: 'txpool.journal',
    kind: 'path',
    default: 'transactions.rlp',
    help: 'Disk journal of local transactions, to survive node restarts',
    category: TXPOOL,
    toml: 'Eth.TxPool.Journal',
    implemented: true,
  },
  {
    name: 'txpool.journalremotes',
    kind: 'bool',
    default: false,
    help: 'Include remote transactions in the journal',
    category: TXPOOL,
    toml: 'Eth.TxPool.JournalRemote',
    implemented: true,
  },
  {
    name: 'txpool.lifetime',
    kind: 'duration',
    default: 10800000,
    help: 'Maximum time non-executable transactions are queued',
    category: TXPOOL,
    toml: 'Eth.TxPool.Lifetime',
    implemented: true,
  },
  {
    name: 'txpool.locals',
    kind: 'list',
    help: 'Comma-separated accounts whose transactions are treated as local (no flush, priority inclusion)',
    category: TXPOOL,
    toml: 'Eth.TxPool.Locals',
    implemented: true,
    check: checkAddresses,
  },
  {
    name: 'txpool.maxtxgas',
    kind: 'uint',
    default: 0,
    help: 'Maximum gas limit of one transaction; larger ones are rejected (0 = no limit)',
    category: TXPOOL,
    toml: 'Eth.TxPool.MaxTxGasLimit',
    implemented: true,
  },
  {
    name: 'txpool.nolocals',
    kind: 'bool',
    default: false,
    help: 'Disable price exemptions for locally submitted transactions',
    category: TXPOOL,
    toml: 'Eth.TxPool.NoLocals',
    implemented: true,
  },
  {
    name: 'txpool.pricebump',
    kind: 'uint',
    default: 10,
    help: 'Price bump percentage needed to replace a transaction',
    category: TXPOOL,
    toml: 'Eth.TxPool.PriceBump',
    implemented: true,
  },
  {
    name: 'txpool.pricelimit',
    kind: 'uint',
    default: 1,
    help: 'Minimum gas price tip for admission into the pool',
    category: TXPOOL,
    toml: 'Eth.TxPool.PriceLimit',
    implemented: true,
  },
  {
    name: 'txpool.rejournal',
    kind: 'duration',
    default: 3600000,
    help: 'Interval at which the local transaction journal is regenerated',
    category: TXPOOL,
    toml: 'Eth.TxPool.Rejournal',
    implemented: true,
  },
];

const SUBCOMMANDS: readonly SubcommandSpec[] = [
  {
    name: 'init',
    args: '<genesis.json>',
    help: 'Write the genesis block and initialise the database',
    implemented: true,
    minArgs: 1,
    maxArgs: 1,
  },
  {
    name: 'import',
    args: '<file.rlp>...',
    help: 'Import blocks from RLP-encoded files',
    implemented: true,
    minArgs: 1,
    maxArgs: Number.POSITIVE_INFINITY,
  },
  {
    name: 'export',
    args: '<file> [first last]',
    help: 'Export the chain, or blocks first..last (appended), to an RLP file (.gz: compressed)',
    implemented: true,
    minArgs: 1,
    maxArgs: 3,
  },
  {
    name: 'dumpconfig',
    args: '',
    help: 'Print the effective configuration as TOML',
    implemented: true,
    minArgs: 0,
    maxArgs: 0,
  },
  {
    name: 'console',
    args: '',
    help: 'Start the node with an interactive JavaScript console attached in the same process',
    implemented: true,
    minArgs: 0,
    maxArgs: 0,
  },
  {
    name: 'attach',
    args: '[endpoint]',
    help: 'Interactive JavaScript console attached to a running node over IPC, HTTP or WS',
    implemented: true,
    minArgs: 0,
    maxArgs: 1,
  },
  {
    name: 'execute-witness',
    args: '<file.json>',
    help: 'Execute one block statelessly from a witness file',
    implemented: true,
    minArgs: 1,
    maxArgs: 1,
  },
  {
    name: 'snapshot',
    args: 'prune-state [root]',
    help: 'Offline state pruning: keep the head state, delete every other trie node and unused code (--bloomfilter.size)',
    implemented: true,
    minArgs: 1,
    maxArgs: 2,
  },
];

export const EXEC_PROGRAM: ProgramSpec = {
  program: 'tern-exec',
  envPrefix: 'TERN_EXEC',
  summary: 'Execution layer of an OP-Stack rollup (the op-geth role), driven by tern-node over the engine API',
  flags: FLAGS,
  subcommands: SUBCOMMANDS,
  tomlConfig: true,
};
