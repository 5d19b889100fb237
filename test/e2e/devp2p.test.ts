// Two tern-exec processes on loopback (real binaries over dist/): the first holds the execution-apis test chain,
// the second starts empty with --bootnodes set to the first's enode (from admin_nodeInfo). They connect
// (admin_peers, net_peerCount 1 on both), STATUS agrees (the second sees the first's head), and a SyncPeer in this
// process, speaking eth/68 to the first, gets its headers, bodies and receipts with the right hashes. And geth's
// private-node habit `--nodiscover --maxpeers 0` starts with the network off. Behind a (fake) NAT-PMP router, one
// maps its ports and advertises the router's external IP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENR } from '@chainsafe/enr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/main/common/logger/index.js';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../../src/main/exec/db/open.js';
import { loadNodeKey } from '../../src/main/exec/p2p/nodeKey.js';
import { P2pServer } from '../../src/main/exec/p2p/server.js';
import { localChain } from '../../src/main/exec/p2p/start.js';
import type { SyncPeer } from '../../src/main/exec/sync/peer.js';
import type { TernTxPool } from '../../src/main/exec/txpool/pool.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { decodeReceipt } from '../../src/main/primitives/receipt/receipt.js';
import { asList, type RlpInput, rlpDecode, rlpEncode } from '../../src/main/primitives/rlp.js';
import { type ExecProcess, ExecProcesses, runTernExec, stopExecProcess } from '../helpers/execProcesses.js';
import { fakePmpRouter, loopbackAddress } from '../helpers/natGateway.js';
import { FIXTURES } from '../helpers/paths.js';
import { rpc, until } from '../helpers/processes.js';

const APIS = join(FIXTURES, 'execution-apis/tests');
const work = mkdtempSync(join(tmpdir(), 'tern-devp2p-'));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

const execs = new ExecProcesses();
/** A node is up once it says so. */
const startNode = (datadir: string, extra: string[]) => execs.start(datadir, extra, 'Started tern-exec');

afterAll(async () => {
  await execs.stopAll();
  rmSync(work, { recursive: true, force: true });
});

describe('two tern-exec processes over devp2p', () => {
  let first: ExecProcess;
  let second: ExecProcess;
  let enode: string;

  beforeAll(async () => {
    const a = join(work, 'a');
    const b = join(work, 'b');
    runTernExec(['--datadir', a, 'init', join(APIS, 'genesis.json')]);
    runTernExec(['--datadir', a, 'import', join(APIS, 'chain.rlp')]);
    runTernExec(['--datadir', b, 'init', join(APIS, 'genesis.json')]);
    first = await startNode(a, ['--port=0', '--nat=extip:127.0.0.1']);
    enode = (await rpc<{ enode: string }>(first.rpc, 'admin_nodeInfo')).enode;
    second = await startNode(b, ['--port=0', '--nat=extip:127.0.0.1', `--bootnodes=${enode}`]);
  }, 90_000);

  it('connect: admin_peers and net_peerCount on both, and STATUS agrees', async () => {
    const info = await rpc<{
      enode: string;
      enr: string;
      ports: { listener: number };
      protocols: { eth: { head: string; genesis: string } };
    }>(first.rpc, 'admin_nodeInfo');
    expect(info.enode).toMatch(/^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
    expect(info.enr).toMatch(/^enr:/);
    expect(
      await until(
        () => rpc<string>(second.rpc, 'net_peerCount'),
        (c) => c === '0x1',
      ),
    ).toBe('0x1');
    expect(
      await until(
        () => rpc<string>(first.rpc, 'net_peerCount'),
        (c) => c === '0x1',
      ),
    ).toBe('0x1');
    const peers = await rpc<Array<{ enode: string; caps: string[]; protocols: { eth: { head: string } } }>>(
      second.rpc,
      'admin_peers',
    );
    expect(peers).toHaveLength(1);
    expect(peers[0]?.caps).toContain('eth/68');
    // The head the first announced in STATUS is its chain head.
    expect(peers[0]?.protocols.eth.head).toBe(info.protocols.eth.head);
    expect(await rpc<boolean>(second.rpc, 'net_listening')).toBe(true);
  });

  it("serves the first's headers, bodies and receipts through a SyncPeer", async () => {
    // This process's own view of the same chain (its genesis and config), for the handshake.
    const c = join(work, 'c');
    runTernExec(['--datadir', c, 'init', join(APIS, 'genesis.json')]);
    const db = await openDatabase({ datadir: c });
    const store = new ChainStore(db);
    const pool = { get: () => undefined, networkForm: () => new Uint8Array(), add: async () => undefined };
    const chain = localChain({ db, store, pool: pool as unknown as TernTxPool, networkId: 0n }, false);
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    const server = new P2pServer(
      {
        port: 0,
        discoveryPort: 0,
        listenHost: '127.0.0.1',
        discv4: false,
        discv5: false,
        bootnodes: [enode],
        dnsNetworks: [],
        maxPeers: 5,
        maxPendingPeers: 0,
        externalIp: '127.0.0.1',
        netRestrict: [],
        clientId: 'tern-exec/e2e',
        requiredBlocks: new Map(),
        txGossip: false,
      },
      loadNodeKey({}),
      chain,
      undefined,
      logger,
    );
    try {
      await server.start();
      const peer = await new Promise<SyncPeer>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no peer')), 15_000);
        server.onPeer((p) => {
          clearTimeout(t);
          resolve(p);
        });
      });
      const head = BigInt(await rpc<string>(first.rpc, 'eth_blockNumber'));
      expect(head).toBeGreaterThan(3n);
      const headers = await peer.getBlockHeaders({ origin: 1n, amount: Number(head), skip: 0, reverse: false });
      expect(headers).toHaveLength(Number(head));
      const blocks: Array<{ hash: string; transactions: string[]; receiptsRoot: string }> = [];
      for (let n = 1n; n <= head; n++)
        blocks.push(await rpc(first.rpc, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]));
      expect(headers.map((h) => hex(keccak256(h)))).toEqual(blocks.map((b) => b.hash));

      const hashes = headers.map((h) => keccak256(h));
      const bodies = await peer.getBlockBodies(hashes);
      expect(bodies).toHaveLength(hashes.length);
      for (const [i, body] of bodies.entries()) {
        const txs = asList(asList(rlpDecode(body), 'body')[0], 'txs');
        // Typed transactions are strings holding type ‖ payload; legacy ones are lists.
        const txHashes = txs.map((t) => hex(keccak256(t instanceof Uint8Array ? t : rlpEncode(t as RlpInput))));
        expect(txHashes).toEqual(blocks[i]?.transactions);
      }
      const receipts = await peer.getReceipts(hashes);
      expect(receipts).toHaveLength(hashes.length);
      for (const [i, list] of receipts.entries()) {
        expect(list).toHaveLength(blocks[i]?.transactions.length ?? -1);
        for (const [j, r] of list.entries()) {
          const mine = await rpc<{ cumulativeGasUsed: string; status: string }>(
            first.rpc,
            'eth_getTransactionReceipt',
            [blocks[i]?.transactions[j]],
          );
          const decoded = decodeReceipt(r);
          expect(`0x${decoded.cumulativeGasUsed.toString(16)}`).toBe(mine.cumulativeGasUsed);
        }
      }
    } finally {
      await server.stop();
      await db.close();
    }
  }, 60_000);
});

describe('full sync between two tern-exec processes', () => {
  it("an empty node with --bootnodes and --synctarget downloads and executes the first node's chain to its head", async () => {
    const a = join(work, 'sync-a');
    const b = join(work, 'sync-b');
    runTernExec(['--datadir', a, 'init', join(APIS, 'genesis.json')]);
    runTernExec(['--datadir', a, 'import', join(APIS, 'chain.rlp')]);
    runTernExec(['--datadir', b, 'init', join(APIS, 'genesis.json')]);
    const source = await startNode(a, ['--port=0', '--nat=extip:127.0.0.1']);
    const head = await rpc<{ hash: string; number: string; stateRoot: string }>(source.rpc, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    expect(Number(head.number)).toBeGreaterThan(1);
    const enode = (await rpc<{ enode: string }>(source.rpc, 'admin_nodeInfo')).enode;
    const syncing = await startNode(b, [
      '--port=0',
      '--nat=extip:127.0.0.1',
      `--bootnodes=${enode}`,
      `--synctarget=${head.hash}`,
      '--syncmode=full',
    ]);
    const got = await until(
      () => rpc<{ hash: string; stateRoot: string } | null>(syncing.rpc, 'eth_getBlockByNumber', [head.number, false]),
      (blk) => blk !== null && blk.hash === head.hash,
      60_000,
    );
    expect(got?.hash, syncing.logs).toBe(head.hash);
    // Executed, not just stored: the state at the head is there and matches.
    expect(got?.stateRoot).toBe(head.stateRoot);
    const latest = await rpc<{ hash: string }>(syncing.rpc, 'eth_getBlockByNumber', ['latest', false]);
    expect(latest.hash).toBe(head.hash);
    expect(syncing.logs).toMatch(/Imported new chain segment/);
  }, 120_000);
});

describe('tern-exec --nodiscover --maxpeers 0', () => {
  it('starts with the network off', async () => {
    const d = join(work, 'private');
    runTernExec(['--datadir', d, 'init', join(APIS, 'genesis.json')]);
    const n = await startNode(d, ['--nodiscover', '--maxpeers', '0']);
    expect(n.logs).toMatch(/P2P off/);
    expect(await rpc<string>(n.rpc, 'net_peerCount')).toBe('0x0');
    expect((await rpc<{ enode: string }>(n.rpc, 'admin_nodeInfo')).enode).toBe('');
  }, 60_000);
});

describe('tern-exec --nat pmp:<router> behind a NAT-PMP router', () => {
  it('maps its ports, advertises the external IP and deletes the mappings on exit', async () => {
    const ip = loopbackAddress();
    const router = await fakePmpRouter(ip, '198.51.100.7');
    try {
      const d = join(work, 'nat');
      runTernExec(['--datadir', d, 'init', join(APIS, 'genesis.json')]);
      const n = await startNode(d, ['--port=0', `--nat=pmp:${ip}`]);
      await until(
        async () => n.logs,
        (logs) => logs.includes('Mapped ports on the NAT gateway'),
      );
      const info = await rpc<{ enode: string; enr: string; ip: string; ports: { listener: number } }>(
        n.rpc,
        'admin_nodeInfo',
      );
      expect(info.ip).toBe('198.51.100.7');
      expect(info.enode).toMatch(new RegExp(`@198\\.51\\.100\\.7:${info.ports.listener}$`));
      expect(ENR.decodeTxt(info.enr).ip).toBe('198.51.100.7');
      const maps = router.requests.filter((r) => r.op !== 0 && r.lifetime !== 0);
      expect(maps.map((r) => [r.op, r.internal])).toEqual([
        [2, info.ports.listener],
        [1, info.ports.listener],
      ]);
      await stopExecProcess(n);
      // Lifetime 0 deletes a mapping (RFC 6886 section 3.4): both are gone when the node stops.
      expect(router.requests.filter((r) => r.op !== 0 && r.lifetime === 0).map((r) => r.op)).toEqual([2, 1]);
    } finally {
      router.close();
    }
  }, 60_000);
});
