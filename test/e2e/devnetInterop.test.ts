// Two tern chains on one layer 1 with a dependency set {901, 902}, and a scripted supervisor of our own: chain A is
// a devnet's sequencer pair; chain B is a second sequencer pair this test starts on the same layer 1, its tern-exec
// running with --rollup.interoprpc (the supervisor) and --rollup.interopmempoolfiltering. Interop activates at B's
// block 2: its genesis holds only the bare proxies at 0x…22 and 0x…23, and that block's upgrade transactions deploy
// the L2ToL2CrossDomainMessenger and, the dependency set listing two chains, the CrossL2Inbox (specs fd72cf79,
// interop/derivation.md "CrossL2InboxProxy Initialization", as op-node orders them), after which both proxies point at
// the spec's implementations with the spec's code hashes. A message initiated on chain A (a log of a deposit-created
// contract) is then executed on chain B by a validateMessage call to that CrossL2Inbox, whose access list carries the
// spec's lookup and checksum entries (the checksum equal to the contract's own calculateChecksum): B's pool admits it
// only after the supervisor's supervisor_checkAccessList accepts those entries, refuses a transaction for a message
// A never sent, and the included call emits ExecutingMessage.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFunctionResult, encodeFunctionData, keccak256, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
import { detectCapabilities } from '../../src/main/devnet/capabilities.js';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { bedrockCode, genesisBlockId } from '../../src/main/devnet/genesis.js';
import { Devnet, type DevnetInfo } from '../../src/main/devnet/launcher.js';
import { freePorts } from '../../src/main/devnet/ports.js';
import { ManagedProcess } from '../../src/main/devnet/process.js';
import { engineArgs, type RoleNode, rollupNodeArgs } from '../../src/main/devnet/roleArgs.js';
import { batchInboxAddress } from '../../src/main/devnet/rollupConfig.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import {
  INTEROP_CROSS_L2_INBOX_ADDRESS,
  INTEROP_CROSS_L2_INBOX_CODE_HASH,
  INTEROP_L2_TO_L2_MESSENGER_ADDRESS,
  INTEROP_L2_TO_L2_MESSENGER_CODE_HASH,
} from '../../src/main/node/derive/upgrades/interop.js';
import { pollUntil } from './devnetChild.js';

const require = createRequire(import.meta.url);
const portalAbi = (
  require('contracts-bedrock-0173/forge-artifacts/OptimismPortal.sol/OptimismPortal.json') as { abi: unknown[] }
).abi;

const CHAIN_A = 901n;
const CHAIN_B = 902n;
const CROSS_L2_INBOX = '0x4200000000000000000000000000000000000022';
const L2_TO_L2_MESSENGER = '0x4200000000000000000000000000000000000023';
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
/** Chain B's interop activation block. */
const INTEROP_BLOCK = 2;
/** The activation block's upgrade transactions (the spec's source hashes): messenger, then CrossL2Inbox. */
const UPGRADE_SOURCES = [
  '0xf5484697c7a9a791db32a3bf0763bf2ba686c77ae7d4c0a5ee8c222a92a8dcc2',
  '0xe54b4d06bbcc857f41ae00e89d820339ac5ce0034aac722c817b2873e03a7e68',
  '0x6e5e214f73143df8fe6f6054a3ed7eb472d373376458a9c8aecdf23475beb616',
  '0x88c6b48354c367125a59792a93a7b60ad7cd66e516157dbba16558c68a46d3cb',
];
const ID = '(address origin, uint256 blockNumber, uint256 logIndex, uint256 timestamp, uint256 chainId)';
const inboxAbi = parseAbi([
  `function calculateChecksum(${ID} _id, bytes32 _msgHash) pure returns (bytes32)`,
  `function validateMessage(${ID} _id, bytes32 _msgHash)`,
]);
/** Creation code that emits one LOG0 of 32 zero bytes and deploys nothing: the initiating message. */
const EMIT_LOG = '0x60206000a000';

const word = (v: bigint, bytes: number) => v.toString(16).padStart(bytes * 2, '0');

/**
 * The access-list entries of an executing message (interop/predeploys.md "Access-list"): the lookup entry, type
 * 0x01, with the source chain, block number, time and log index, and the checksum entry, type 0x03:
 * H(H(H(origin ++ msgHash) ++ bytes12(0) ++ block ++ time ++ logIndex) ++ chainId) with its first byte replaced.
 */
function messageEntries(m: {
  chainId: bigint;
  block: bigint;
  time: bigint;
  logIndex: bigint;
  origin: string;
  msgHash: string;
}) {
  const lookup = `0x01000000${word(m.chainId, 8)}${word(m.block, 8)}${word(m.time, 8)}${word(m.logIndex, 4)}`;
  const logHash = keccak256(`0x${m.origin.slice(2)}${m.msgHash.slice(2)}` as `0x${string}`);
  const idLogHash = keccak256(`0x${logHash.slice(2)}${'00'.repeat(12)}${lookup.slice(26)}` as `0x${string}`);
  const bare = keccak256(`0x${idLogHash.slice(2)}${word(m.chainId, 32)}` as `0x${string}`);
  return [lookup, `0x03${bare.slice(4)}`];
}

interface CheckCall {
  entries: string[];
  minSafety: string;
  descriptor: Record<string, string>;
}

/** The scripted supervisor: supervisor_checkAccessList over HTTP, valid for the messages it was told about. */
async function startSupervisor(dependencies: bigint[]) {
  const known = new Set<string>();
  const calls: CheckCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: unknown;
        method: string;
        params: unknown[];
      };
      let reply: Record<string, unknown>;
      if (body.method !== 'supervisor_checkAccessList') {
        reply = { error: { code: -32601, message: `the method ${body.method} does not exist/is not available` } };
      } else {
        const [entries, minSafety, descriptor] = body.params as [string[], string, Record<string, string>];
        calls.push({ entries, minSafety, descriptor });
        const chain = BigInt(descriptor.chainID ?? '0x0');
        if (!dependencies.includes(chain)) reply = { error: { code: -32000, message: 'unknown chain' } };
        else if (!known.has(entries.join(','))) reply = { error: { code: -32000, message: 'conflicting data' } };
        else reply = { result: null };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...reply }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    allow: (entries: string[]) => known.add(entries.join(',')),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

it('a message sent on chain A is checked with the supervisor before chain B admits its executing transaction', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-devnet-e2e-interop-'));
  const supervisor = await startSupervisor([CHAIN_A, CHAIN_B]);
  const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1-block-time=1', '--da=calldata', '--replicas=0']);
  if (opts === 'help') throw new Error('unexpected help');
  const lines: string[] = [];
  const devnet = new Devnet(opts, { print: (l) => lines.push(l) });
  const chainB: ManagedProcess[] = [];
  const until = <T>(what: string, ms: number, f: () => Promise<T | undefined>) =>
    pollUntil(what, ms, () => `${lines.join('\n')}\n(chain B logs in ${dir}/chain-b)`, f);
  try {
    const info: DevnetInfo = await devnet.start();
    expect(info.missing).toEqual([]);
    const a = info.nodes[0] as DevnetInfo['nodes'][number];
    const test = info.accounts.find((x) => x.role === 'test');
    if (test === undefined) throw new Error('devnet.json lists no test account');
    const user = privateKeyToAccount(test.privateKey as `0x${string}`);

    // Chain B: chain A's genesis and rollup config with chain id 902, interop from block 2 (bare proxies at the
    // interop predeploys), its own batch inbox, the test account funded; a sequencer pair on the same layer 1.
    const bDir = join(dir, 'chain-b');
    mkdirSync(join(bDir, 'logs'), { recursive: true });
    const genesis = JSON.parse(readFileSync(info.l2Genesis, 'utf8')) as {
      config: Record<string, unknown>;
      alloc: Record<string, unknown>;
      timestamp: string;
    };
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as Record<string, unknown> & {
      genesis: { l2: { hash: string }; l2_time: number };
      block_time: number;
    };
    const interopTime = rollup.genesis.l2_time + INTEROP_BLOCK * rollup.block_time;
    expect(Number(genesis.timestamp)).toBe(rollup.genesis.l2_time);
    genesis.config.chainId = Number(CHAIN_B);
    genesis.config.interopTime = interopTime;
    genesis.alloc[user.address.toLowerCase()] = { balance: `0x${(10n ** 21n).toString(16)}` };
    // contracts-bedrock's Proxy with no admin: the upgrade transactions' upgradeTo comes from address zero.
    for (const proxy of [CROSS_L2_INBOX, L2_TO_L2_MESSENGER]) {
      expect(genesis.alloc[proxy]).toBeUndefined();
      genesis.alloc[proxy] = { balance: '0x0', code: bedrockCode('Proxy') };
    }
    const bGenesis = join(bDir, 'l2-genesis.json');
    writeFileSync(bGenesis, JSON.stringify(genesis));
    rollup.l2_chain_id = Number(CHAIN_B);
    rollup.genesis.l2.hash = genesisBlockId(genesis).hash;
    rollup.interop_time = interopTime;
    rollup.batch_inbox_address = batchInboxAddress(CHAIN_B);
    const bRollup = join(bDir, 'rollup.json');
    writeFileSync(bRollup, JSON.stringify(rollup));
    const depset = join(bDir, 'depset.json');
    writeFileSync(
      depset,
      JSON.stringify({ dependencies: { [`${CHAIN_A}`]: { chainIndex: 0 }, [`${CHAIN_B}`]: { chainIndex: 1 } } }),
    );
    const jwt = join(bDir, 'jwt.txt');
    writeFileSync(jwt, `0x${'5a'.repeat(32)}\n`, { mode: 0o600 });
    const [execPort, authPort, nodePort] = (await freePorts(3)) as [number, number, number];
    const b: RoleNode = {
      role: 'sequencer',
      execRpc: `http://127.0.0.1:${execPort}`,
      engine: `http://127.0.0.1:${authPort}`,
      nodeRpc: `http://127.0.0.1:${nodePort}`,
      metrics: null,
      jwtSecret: jwt,
      p2p: null,
    };
    const caps = detectCapabilities();
    const [execBin, ...execPre] = opts.programs.exec as [string, ...string[]];
    const [nodeBin, ...nodePre] = opts.programs.node as [string, ...string[]];
    const run = (name: string, command: string, args: string[]) => {
      const p = new ManagedProcess({ name, command, args, logFile: join(bDir, 'logs', `${name}.log`) });
      p.start();
      chainB.push(p);
      return p;
    };
    const execDir = join(bDir, 'exec');
    const init = run('init', execBin, [...execPre, 'init', `--datadir=${execDir}`, bGenesis]);
    expect((await init.exited).code).toBe(0);
    run('exec', execBin, [
      ...execPre,
      ...engineArgs(b, execDir, '127.0.0.1', caps),
      `--rollup.interoprpc=${supervisor.url}`,
      '--rollup.interopmempoolfiltering',
    ]);
    await until('chain B engine', 60_000, async () => (await rpcCall(b.execRpc, 'eth_chainId')) ?? undefined);
    expect(await rpcCall(b.execRpc, 'eth_chainId')).toBe('0x386');
    run('node', nodeBin, [
      ...nodePre,
      ...rollupNodeArgs(b, {
        l1Rpc: info.l1.rpc,
        beacon: info.l1.beacon,
        rollupConfig: bRollup,
        l1Genesis: info.l1Genesis,
        host: '127.0.0.1',
        l1BlockTime: 1,
        anvil: false,
        inProcess: false,
        caps,
      }),
      `--interop.dependency-set=${depset}`,
    ]);
    await until('chain B to sequence past its interop activation block', 90_000, async () =>
      Number(await rpcCall<string>(b.execRpc, 'eth_blockNumber')) > INTEROP_BLOCK ? true : undefined,
    );

    // The activation block: the L1 info deposit, then the four upgrade transactions in the spec's order, each
    // succeeding; the blocks around it carry none of them.
    type Tx = { hash: string; type: string; sourceHash?: string };
    const blockTxs = async (n: number) =>
      (await rpcCall<{ transactions: Tx[] }>(b.execRpc, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]))
        .transactions;
    const activation = await blockTxs(INTEROP_BLOCK);
    expect(activation.map((t) => t.type)).toEqual(Array(5).fill('0x7e'));
    expect(activation.slice(1).map((t) => t.sourceHash)).toEqual(UPGRADE_SOURCES);
    for (const t of activation) {
      const r = await rpcCall<{ status: string }>(b.execRpc, 'eth_getTransactionReceipt', [t.hash]);
      expect(r.status, `upgrade transaction ${t.sourceHash}`).toBe('0x1');
    }
    for (const n of [INTEROP_BLOCK - 1, INTEROP_BLOCK + 1]) {
      const around = (await blockTxs(n)).map((t) => t.sourceHash);
      expect(around.filter((h) => h !== undefined && UPGRADE_SOURCES.includes(h))).toEqual([]);
    }
    // Both proxies point at the spec's implementations from the activation block on, whose code has the spec's hash.
    const implementation = async (proxy: string, n: number) =>
      `0x${(await rpcCall<string>(b.execRpc, 'eth_getStorageAt', [proxy, IMPLEMENTATION_SLOT, `0x${n.toString(16)}`])).slice(-40)}`;
    const codeHash = async (address: string) =>
      keccak256((await rpcCall<string>(b.execRpc, 'eth_getCode', [address, 'latest'])) as `0x${string}`);
    for (const [proxy, impl, hash] of [
      [CROSS_L2_INBOX, INTEROP_CROSS_L2_INBOX_ADDRESS, INTEROP_CROSS_L2_INBOX_CODE_HASH],
      [L2_TO_L2_MESSENGER, INTEROP_L2_TO_L2_MESSENGER_ADDRESS, INTEROP_L2_TO_L2_MESSENGER_CODE_HASH],
    ] as const) {
      expect(await implementation(proxy, INTEROP_BLOCK - 1)).toBe(`0x${'00'.repeat(20)}`);
      expect(await implementation(proxy, INTEROP_BLOCK)).toBe(`0x${impl}`);
      expect(await codeHash(`0x${impl}`)).toBe(hash);
    }

    // The initiating message: on chain A, a deposit from layer 1 creates a contract whose creation emits a log.
    const data = encodeFunctionData({
      abi: portalAbi,
      functionName: 'depositTransaction',
      args: ['0x0000000000000000000000000000000000000000', 0n, 200_000n, true, EMIT_LOG],
    });
    const nonce = Number(await rpcCall<string>(info.l1.rpc, 'eth_getTransactionCount', [user.address, 'pending']));
    const l1Tx = await user.signTransaction({
      type: 'eip1559',
      chainId: 1337,
      nonce,
      to: JSON.parse(readFileSync(info.rollupConfig, 'utf8')).deposit_contract_address,
      value: 0n,
      data,
      gas: 300_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    await rpcCall(info.l1.rpc, 'eth_sendRawTransaction', [l1Tx]);
    type Log = { address: string; topics: string[]; data: string; logIndex: string; blockNumber: string };
    const log = await until('the log on chain A', 120_000, async () => {
      const logs = await rpcCall<Log[]>(a.execRpc, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
      return logs.find((l) => l.data === `0x${'00'.repeat(32)}` && l.topics.length === 0);
    });
    const block = await rpcCall<{ timestamp: string }>(a.execRpc, 'eth_getBlockByNumber', [log.blockNumber, false]);
    // The message hash: keccak256(topics ++ data), here no topics.
    const message = {
      chainId: CHAIN_A,
      block: BigInt(log.blockNumber),
      time: BigInt(block.timestamp),
      logIndex: BigInt(log.logIndex),
      origin: log.address,
      msgHash: keccak256(log.data as `0x${string}`),
    };
    const entries = messageEntries(message);
    supervisor.allow(entries);
    const id = (m: typeof message) => ({
      origin: m.origin as `0x${string}`,
      blockNumber: m.block,
      logIndex: m.logIndex,
      timestamp: m.time,
      chainId: m.chainId,
    });
    // Chain B's CrossL2Inbox computes the same checksum as the spec's formula above.
    const checksum = decodeFunctionResult({
      abi: inboxAbi,
      functionName: 'calculateChecksum',
      data: await rpcCall<`0x${string}`>(b.execRpc, 'eth_call', [
        {
          to: CROSS_L2_INBOX,
          data: encodeFunctionData({
            abi: inboxAbi,
            functionName: 'calculateChecksum',
            args: [id(message), message.msgHash],
          }),
        },
        'latest',
      ]),
    });
    expect(checksum).toBe(entries[1]);

    // The executing transactions on chain B: one for A's message, one for a message A never sent (log index + 1).
    const chainBNonce = Number(await rpcCall<string>(b.execRpc, 'eth_getTransactionCount', [user.address, 'pending']));
    const executing = (m: typeof message, accessEntries: string[], n: number) =>
      user.signTransaction({
        type: 'eip1559',
        chainId: Number(CHAIN_B),
        nonce: n,
        to: CROSS_L2_INBOX,
        data: encodeFunctionData({ abi: inboxAbi, functionName: 'validateMessage', args: [id(m), m.msgHash] }),
        value: 0n,
        gas: 100_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
        accessList: [{ address: CROSS_L2_INBOX, storageKeys: accessEntries as `0x${string}`[] }],
      });
    const forgedMessage = { ...message, logIndex: message.logIndex + 1n };
    const forged = messageEntries(forgedMessage);
    await expect(
      rpcCall(b.execRpc, 'eth_sendRawTransaction', [await executing(forgedMessage, forged, chainBNonce)]),
    ).rejects.toThrow(/transaction filtered out/);
    expect(supervisor.calls).toHaveLength(1);
    const hash = await rpcCall<string>(b.execRpc, 'eth_sendRawTransaction', [
      await executing(message, entries, chainBNonce),
    ]);
    expect(supervisor.calls).toHaveLength(2);
    for (const c of supervisor.calls) {
      expect(c.minSafety).toBe('cross-unsafe');
      expect(BigInt(c.descriptor.chainID ?? '0')).toBe(CHAIN_B);
      expect(BigInt(c.descriptor.timeout ?? '0')).toBe(86_400n);
    }
    expect(supervisor.calls[0]?.entries).toEqual(forged);
    expect(supervisor.calls[1]?.entries).toEqual(entries);
    // Admitted, and chain B's sequencer includes it: the CrossL2Inbox finds the checksum in the access list and
    // emits ExecutingMessage(msgHash, id).
    const receipt = await until(
      'the executing transaction on chain B',
      60_000,
      async () =>
        (await rpcCall<{ status: string; logs: Log[] } | null>(b.execRpc, 'eth_getTransactionReceipt', [hash])) ??
        undefined,
    );
    expect(receipt.status).toBe('0x1');
    expect(receipt.logs).toHaveLength(1);
    const executed = receipt.logs[0] as Log;
    expect(executed.address).toBe(CROSS_L2_INBOX);
    expect(executed.topics).toEqual([
      keccak256(new TextEncoder().encode('ExecutingMessage(bytes32,(address,uint256,uint256,uint256,uint256))')),
      message.msgHash,
    ]);
    // A transaction without CrossL2Inbox keys never reaches the supervisor.
    const plain = await user.signTransaction({
      type: 'eip1559',
      chainId: Number(CHAIN_B),
      nonce: chainBNonce + 1,
      to: '0x00000000000000000000000000000000000000aa',
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    await rpcCall(b.execRpc, 'eth_sendRawTransaction', [plain]);
    expect(supervisor.calls).toHaveLength(2);
  } finally {
    await Promise.all(chainB.map((p) => p.stop(5000)));
    await devnet.stop();
    await supervisor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 400_000);
