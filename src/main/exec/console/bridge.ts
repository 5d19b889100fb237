// The objects the console offers, shaped as geth's console (web3.js 0.20): `eth.blockNumber`, `eth.getBalance(a)`,
// `net.version`, `admin.nodeInfo`, `txpool.status`, `debug.traceTransaction(h)`, and `web3.eth` etc. Properties
// and methods return promises; the REPL awaits them before printing. Quantities that geth's console prints as
// numbers are decoded (numbers when safe, bigint otherwise); objects are shown as the node returns them.
import type { ConsoleTransport } from './transport.js';

type Call = (method: string, params: readonly unknown[]) => Promise<unknown>;

/** A hex quantity as a number when it fits exactly, else a bigint; anything else unchanged. */
export function quantity(v: unknown): unknown {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) return v;
  const n = BigInt(v);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** A block argument as the node takes it: numbers become hex quantities, tags and hashes pass through. */
function blockArg(b: unknown): unknown {
  if (typeof b === 'number' || typeof b === 'bigint') return `0x${b.toString(16)}`;
  return b ?? 'latest';
}

const isHash = (v: unknown) => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v);

interface Spec {
  /** Getter properties: name → [method, decode as quantity]. */
  props?: Record<string, [string, boolean]>;
  /** Methods: name → RPC method (params passed through) or a custom function. */
  methods?: Record<string, string | ((call: Call, ...args: unknown[]) => Promise<unknown>)>;
}

const SPECS: Record<string, Spec> = {
  eth: {
    props: {
      accounts: ['eth_accounts', false],
      blockNumber: ['eth_blockNumber', true],
      coinbase: ['eth_coinbase', false],
      gasPrice: ['eth_gasPrice', true],
      maxPriorityFeePerGas: ['eth_maxPriorityFeePerGas', true],
      syncing: ['eth_syncing', false],
    },
    methods: {
      chainId: async (call) => quantity(await call('eth_chainId', [])),
      getBalance: async (call, a, b) => quantity(await call('eth_getBalance', [a, blockArg(b)])),
      getTransactionCount: async (call, a, b) => quantity(await call('eth_getTransactionCount', [a, blockArg(b)])),
      getCode: (call, a, b) => call('eth_getCode', [a, blockArg(b)]),
      getStorageAt: (call, a, s, b) => call('eth_getStorageAt', [a, s, blockArg(b)]),
      getBlock: (call, b, full) =>
        isHash(b)
          ? call('eth_getBlockByHash', [b, full === true])
          : call('eth_getBlockByNumber', [blockArg(b), full === true]),
      getBlockByNumber: (call, b, full) => call('eth_getBlockByNumber', [blockArg(b), full === true]),
      getBlockByHash: (call, h, full) => call('eth_getBlockByHash', [h, full === true]),
      getBlockTransactionCount: async (call, b) =>
        quantity(
          await (isHash(b)
            ? call('eth_getBlockTransactionCountByHash', [b])
            : call('eth_getBlockTransactionCountByNumber', [blockArg(b)])),
        ),
      getBlockReceipts: (call, b) => call('eth_getBlockReceipts', [blockArg(b)]),
      getTransaction: 'eth_getTransactionByHash',
      getTransactionReceipt: 'eth_getTransactionReceipt',
      getTransactionFromBlock: (call, b, i) =>
        isHash(b)
          ? call('eth_getTransactionByBlockHashAndIndex', [b, blockArg(i)])
          : call('eth_getTransactionByBlockNumberAndIndex', [blockArg(b), blockArg(i)]),
      getHeaderByNumber: (call, b) => call('eth_getHeaderByNumber', [blockArg(b)]),
      getHeaderByHash: 'eth_getHeaderByHash',
      call: (call, tx, b) => call('eth_call', [tx, blockArg(b)]),
      estimateGas: async (call, tx, b) =>
        quantity(await call('eth_estimateGas', b === undefined ? [tx] : [tx, blockArg(b)])),
      createAccessList: (call, tx, b) => call('eth_createAccessList', [tx, blockArg(b)]),
      getLogs: 'eth_getLogs',
      getProof: (call, a, keys, b) => call('eth_getProof', [a, keys ?? [], blockArg(b)]),
      feeHistory: (call, n, b, p) => call('eth_feeHistory', [blockArg(n), blockArg(b), p ?? []]),
      sendRawTransaction: 'eth_sendRawTransaction',
      sendTransaction: 'eth_sendTransaction',
      signTransaction: 'eth_signTransaction',
      sign: 'eth_sign',
    },
  },
  net: {
    props: { version: ['net_version', false], listening: ['net_listening', false], peerCount: ['net_peerCount', true] },
  },
  admin: {
    props: { nodeInfo: ['admin_nodeInfo', false], peers: ['admin_peers', false], datadir: ['admin_datadir', false] },
    methods: { addPeer: 'admin_addPeer', removePeer: 'admin_removePeer' },
  },
  txpool: {
    props: { content: ['txpool_content', false], inspect: ['txpool_inspect', false], status: ['txpool_status', false] },
    methods: { contentFrom: 'txpool_contentFrom' },
  },
  debug: {
    methods: {
      traceTransaction: 'debug_traceTransaction',
      traceCall: (call, tx, b, cfg) =>
        call('debug_traceCall', cfg === undefined ? [tx, blockArg(b)] : [tx, blockArg(b), cfg]),
      traceBlockByNumber: (call, b, cfg) =>
        call('debug_traceBlockByNumber', cfg === undefined ? [blockArg(b)] : [blockArg(b), cfg]),
      traceBlockByHash: 'debug_traceBlockByHash',
      getRawBlock: (call, b) => call('debug_getRawBlock', [blockArg(b)]),
      getRawHeader: (call, b) => call('debug_getRawHeader', [blockArg(b)]),
      getRawReceipts: (call, b) => call('debug_getRawReceipts', [blockArg(b)]),
      getRawTransaction: 'debug_getRawTransaction',
      preimage: 'debug_preimage',
      setHead: (call, b) => call('debug_setHead', [blockArg(b)]),
      verbosity: 'debug_verbosity',
      vmodule: 'debug_vmodule',
      executionWitness: (call, b) => call('debug_executionWitness', [blockArg(b)]),
    },
  },
};

function namespaceObject(spec: Spec, call: Call): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  for (const [name, [method, decode]] of Object.entries(spec.props ?? {})) {
    Object.defineProperty(obj, name, {
      enumerable: true,
      get: () => call(method, []).then((v) => (decode ? quantity(v) : v)),
    });
  }
  for (const [name, m] of Object.entries(spec.methods ?? {})) {
    obj[name] =
      typeof m === 'string' ? (...args: unknown[]) => call(m, args) : (...args: unknown[]) => m(call, ...args);
  }
  return obj;
}

/** The console's global objects: eth, net, admin, txpool, debug, web3 (with the same under web3.*), rpc. */
export function consoleObjects(transport: ConsoleTransport): Record<string, unknown> {
  const call: Call = (method, params) => transport.call(method, params);
  const ns: Record<string, Record<string, unknown>> = {};
  for (const [name, spec] of Object.entries(SPECS)) ns[name] = namespaceObject(spec, call);
  const web3: Record<string, unknown> = { ...ns };
  Object.defineProperty(web3, 'clientVersion', { enumerable: true, get: () => call('web3_clientVersion', []) });
  web3.sha3 = (data: string) => call('web3_sha3', [data]);
  web3.toHex = (n: number | bigint) => `0x${n.toString(16)}`;
  web3.fromWei = (wei: bigint | number | string, unit: 'ether' | 'gwei' = 'ether') => {
    const d = unit === 'gwei' ? 1_000_000_000n : 1_000_000_000_000_000_000n;
    const v = BigInt(wei);
    const frac = (v % d)
      .toString()
      .padStart(unit === 'gwei' ? 9 : 18, '0')
      .replace(/0+$/, '');
    return frac === '' ? (v / d).toString() : `${v / d}.${frac}`;
  };
  /** Any method by name: rpc.call('eth_chainId'). */
  const rpc = { call: (method: string, ...params: unknown[]) => call(method, params) };
  return { ...ns, web3, rpc };
}
