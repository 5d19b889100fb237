// Two tern chains on one layer 1 with a dependency set {901, 902}, and a scripted supervisor of our own: chain A is
// a devnet's sequencer pair; chain B (interop active from genesis) is a second sequencer pair this test starts on
// the same layer 1, its tern-exec running with --rollup.interoprpc (the supervisor) and
// --rollup.interopmempoolfiltering. A message initiated on chain A (a log of a deposit-created contract) is executed
// on chain B by a transaction whose access list names CrossL2Inbox keys for it: B's pool admits it only after the
// supervisor's supervisor_checkAccessList accepts those keys, and refuses a transaction for a message A never sent.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
import { detectCapabilities } from '../../src/main/devnet/capabilities.js';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { genesisBlockId } from '../../src/main/devnet/genesis.js';
import { Devnet, type DevnetInfo } from '../../src/main/devnet/launcher.js';
import { freePorts } from '../../src/main/devnet/ports.js';
import { ManagedProcess } from '../../src/main/devnet/process.js';
import { engineArgs, type RoleNode, rollupNodeArgs } from '../../src/main/devnet/roleArgs.js';
import { batchInboxAddress } from '../../src/main/devnet/rollupConfig.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { pollUntil } from './devnetChild.js';

const require = createRequire(import.meta.url);
const portalAbi = (
  require('contracts-bedrock-0173/forge-artifacts/OptimismPortal.sol/OptimismPortal.json') as { abi: unknown[] }
).abi;

const CHAIN_A = 901n;
const CHAIN_B = 902n;
const CROSS_L2_INBOX = '0x4200000000000000000000000000000000000022';
/** Creation code that emits one LOG0 of 32 zero bytes and deploys nothing: the initiating message. */
const EMIT_LOG = '0x60206000a000';

const word = (v: bigint, bytes: number) => v.toString(16).padStart(bytes * 2, '0');

/**
 * The access-list entries our supervisor hands out for a message (the interop spec's two-entry form: a lookup
 * entry, type 0x01, with the source chain, block number, time and log index, and a checksum entry, type 0x03,
 * binding them to the log's hash).
 */
function messageEntries(m: { chainId: bigint; block: bigint; time: bigint; logIndex: bigint; logHash: string }) {
  const lookup = `0x01000000${word(m.chainId, 8)}${word(m.block, 8)}${word(m.time, 8)}${word(m.logIndex, 4)}`;
  const sum = keccak256(`0x${m.logHash.slice(2)}${lookup.slice(2)}` as `0x${string}`);
  return [lookup, `0x03${sum.slice(4)}`];
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

    // Chain B: chain A's genesis and rollup config with chain id 902, interop from genesis, its own batch inbox,
    // the test account funded; a sequencer pair on the same layer 1.
    const bDir = join(dir, 'chain-b');
    mkdirSync(join(bDir, 'logs'), { recursive: true });
    const genesis = JSON.parse(readFileSync(info.l2Genesis, 'utf8')) as {
      config: Record<string, unknown>;
      alloc: Record<string, unknown>;
    };
    genesis.config.chainId = Number(CHAIN_B);
    genesis.config.interopTime = 0;
    genesis.alloc[user.address.toLowerCase()] = { balance: `0x${(10n ** 21n).toString(16)}` };
    const bGenesis = join(bDir, 'l2-genesis.json');
    writeFileSync(bGenesis, JSON.stringify(genesis));
    const rollup = JSON.parse(readFileSync(info.rollupConfig, 'utf8')) as Record<string, unknown> & {
      genesis: { l2: { hash: string }; l2_time: number };
    };
    rollup.l2_chain_id = Number(CHAIN_B);
    rollup.genesis.l2.hash = genesisBlockId(genesis).hash;
    rollup.interop_time = rollup.genesis.l2_time;
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
    await until('chain B to sequence a block', 90_000, async () =>
      Number(await rpcCall<string>(b.execRpc, 'eth_blockNumber')) >= 2 ? true : undefined,
    );

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
    // The spec's log hash: keccak256(address ++ keccak256(topics ++ data)) — here no topics.
    const payloadHash = keccak256(log.data as `0x${string}`);
    const logHash = keccak256(`0x${log.address.slice(2)}${payloadHash.slice(2)}` as `0x${string}`);
    const message = {
      chainId: CHAIN_A,
      block: BigInt(log.blockNumber),
      time: BigInt(block.timestamp),
      logIndex: BigInt(log.logIndex),
      logHash,
    };
    const entries = messageEntries(message);
    supervisor.allow(entries);

    // The executing transactions on chain B: one for A's message, one for a message A never sent (log index + 1).
    const chainBNonce = Number(await rpcCall<string>(b.execRpc, 'eth_getTransactionCount', [user.address, 'pending']));
    const executing = (accessEntries: string[], n: number) =>
      user.signTransaction({
        type: 'eip1559',
        chainId: Number(CHAIN_B),
        nonce: n,
        to: CROSS_L2_INBOX,
        value: 0n,
        gas: 100_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
        accessList: [{ address: CROSS_L2_INBOX, storageKeys: accessEntries as `0x${string}`[] }],
      });
    const forged = messageEntries({ ...message, logIndex: message.logIndex + 1n });
    await expect(rpcCall(b.execRpc, 'eth_sendRawTransaction', [await executing(forged, chainBNonce)])).rejects.toThrow(
      /transaction filtered out/,
    );
    expect(supervisor.calls).toHaveLength(1);
    const hash = await rpcCall<string>(b.execRpc, 'eth_sendRawTransaction', [await executing(entries, chainBNonce)]);
    expect(supervisor.calls).toHaveLength(2);
    for (const c of supervisor.calls) {
      expect(c.minSafety).toBe('cross-unsafe');
      expect(BigInt(c.descriptor.chainID ?? '0')).toBe(CHAIN_B);
      expect(BigInt(c.descriptor.timeout ?? '0')).toBe(86_400n);
    }
    expect(supervisor.calls[0]?.entries).toEqual(forged);
    expect(supervisor.calls[1]?.entries).toEqual(entries);
    // Admitted, and chain B's sequencer includes it.
    const receipt = await until(
      'the executing transaction on chain B',
      60_000,
      async () =>
        (await rpcCall<{ status: string } | null>(b.execRpc, 'eth_getTransactionReceipt', [hash])) ?? undefined,
    );
    expect(receipt.status).toBe('0x1');
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
