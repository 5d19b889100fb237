import { describe, expect, it } from 'vitest';
import { DaServer } from '../../../../src/main/altda/server.js';
import { MemoryDaStore } from '../../../../src/main/altda/store.js';
import { DaPublisher } from '../../../../src/main/batcher/altda/daPublisher.js';
import { BatchSubmitter, type DriverDeps, type DriverOptions } from '../../../../src/main/batcher/driver.js';
import { channelDefaults } from '../../../../src/main/batcher/options.js';
import type { L1Rpc, TxCandidate, TxManager, TxReceipt } from '../../../../src/main/batcher/txmgr.js';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { parseRollupConfig } from '../../../../src/main/primitives/rollup/config.js';
import { DaClient } from '../../../../src/main/protocol/altda/client.js';
import { decodeCommitmentTxData, KECCAK_COMMITMENT } from '../../../../src/main/protocol/altda/commitment.js';
import { parseFrames } from '../../../../src/main/protocol/channel/frame.js';
import { decodeBatches } from './decodeBatches.js';
import { type Epoch, fakeL2Chain, L2_CHAIN_ID, userTxsOf } from './l2Fixtures.js';

const logger = createLogger({ level: 'silent', format: 'logfmt', stream: { write: () => true } }).logger;
const GENESIS_TIME = 1_700_000_000;
const GENESIS_HASH = `0x${'77'.repeat(32)}`;
const INBOX = '0xff00000000000000000000000000000000000901';
const epoch: Epoch = { number: 5, hash: `0x${'55'.repeat(32)}`, time: GENESIS_TIME };

function rollupConfig(forks: Record<string, number>) {
  return parseRollupConfig({
    genesis: {
      l1: { hash: epoch.hash, number: 5 },
      l2: { hash: GENESIS_HASH, number: 0 },
      l2_time: GENESIS_TIME,
      system_config: {
        batcherAddr: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x${'00'.repeat(31)}01`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 31337,
    l2_chain_id: Number(L2_CHAIN_ID),
    ...forks,
    batch_inbox_address: INBOX,
    deposit_contract_address: '0x0000000000000000000000000000000000000001',
    l1_system_config_address: '0x0000000000000000000000000000000000000002',
  });
}

const chainOf = (count: number, seed: string, first = 1, parentHash = GENESIS_HASH, t0 = GENESIS_TIME + 2) =>
  fakeL2Chain({ count, first, parentHash, timestamp0: t0, blockTime: 2, epochOf: () => epoch, txs: () => 1, seed });

const l1Hash = (n: number, fork: number) =>
  `0x${fork.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

class Fakes {
  l2Blocks: Record<string, unknown>[] = [];
  safe: { hash: string; number: number; l1origin?: { hash: string; number: number } } = {
    hash: GENESIS_HASH,
    number: 0,
  };
  l1Head = 100;
  /** L1 blocks from this number on belong to fork `l1Fork` (an L1 reorg bumps it). */
  l1ForkFrom = 0;
  l1Fork = 0;
  nonceResets = 0;
  sent: TxCandidate[] = [];
  l1HashOf = (n: number) => l1Hash(n, n >= this.l1ForkFrom ? this.l1Fork : 0);
  /** Reorgs L1 from block n on. */
  reorgL1(n: number): void {
    this.l1ForkFrom = n;
    this.l1Fork++;
  }
  l2: L1Rpc = {
    call: async <T>(_m: string, p: readonly unknown[] = []) => (this.l2Blocks[Number(p[0]) - 1] ?? null) as T,
  };
  rollup: L1Rpc = {
    call: async <T>() => {
      const last = this.l2Blocks[this.l2Blocks.length - 1] as Record<string, string>;
      return { safe_l2: this.safe, unsafe_l2: { hash: last.hash, number: Number(last.number) } } as T;
    },
  };
  l1: L1Rpc = {
    call: async <T>(_m: string, p: readonly unknown[] = []) => {
      const n = p[0] === 'latest' || p[0] === undefined ? this.l1Head : Number(p[0]);
      if (n > this.l1Head) return null as T;
      return {
        number: `0x${n.toString(16)}`,
        hash: this.l1HashOf(n),
        timestamp: `0x${(GENESIS_TIME + 100).toString(16)}`,
        baseFeePerGas: '0x1',
      } as T;
    },
  };
  txmgr = {
    send: async (c: TxCandidate): Promise<TxReceipt> => {
      this.sent.push(c);
      return { txHash: '0x', blockNumber: this.l1Head, blockHash: this.l1HashOf(this.l1Head), success: true };
    },
    resetNonce: () => {
      this.nonceResets++;
    },
  } as unknown as TxManager;
}

function submitter(
  f: Fakes,
  over: Partial<DriverOptions> = {},
  forks: Record<string, number> = { regolith_time: 0, canyon_time: 0, delta_time: 0, ecotone_time: 0, fjord_time: 0 },
  extra: Partial<DriverDeps> = {},
) {
  const opts: DriverOptions = {
    ...channelDefaults,
    pollIntervalMs: 10,
    maxPendingTx: 1,
    stopped: false,
    cellProofs: false,
    maxChannelDuration: 1,
    ...over,
  };
  return new BatchSubmitter(opts, rollupConfig(forks), {
    logger,
    signal: new AbortController().signal,
    l1: f.l1,
    l2: f.l2,
    rollup: f.rollup,
    txmgr: f.txmgr,
    ...extra,
  });
}

describe('BatchSubmitter', () => {
  it('alt-DA mode: frames go to the DA server, a keccak commitment to L1 as calldata', async () => {
    const server = new DaServer(new MemoryDaStore(), {}, logger);
    const url = await server.start();
    try {
      const f = new Fakes();
      f.l2Blocks = await chainOf(3, 'alt');
      const altDa = new DaPublisher({ url, daService: false, putTimeoutMs: 5000, maxConcurrent: 1 }, logger);
      const d = submitter(f, {}, undefined, { altDa });
      await d.tick();
      f.l1Head = 101;
      await d.tick();
      for (let i = 0; i < 50 && f.sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(f.sent).toHaveLength(1);
      const data = f.sent[0]?.data as Uint8Array;
      expect(data.length).toBe(34);
      const comm = decodeCommitmentTxData(data);
      expect(comm.type).toBe(KECCAK_COMMITMENT);
      expect(server.counts.put).toBe(1);
      const payload = await new DaClient({ url }).getInput(comm);
      expect(payload[0]).toBe(0);
      const decoded = await decodeBatches([payload], { blockTime: 2, genesisTime: GENESIS_TIME, chainId: L2_CHAIN_ID });
      expect(decoded.map((x) => x.txHashes)).toEqual(f.l2Blocks.map(userTxsOf));
    } finally {
      await server.stop();
    }
  });

  it('alt-DA mode: a DA server that is down fails the transaction (nothing posted), the frames are sent again', async () => {
    const server = new DaServer(new MemoryDaStore(), {}, logger);
    const url = await server.start();
    await server.stop();
    const f = new Fakes();
    f.l2Blocks = await chainOf(2, 'down');
    const altDa = new DaPublisher({ url, daService: false, putTimeoutMs: 1000, maxConcurrent: 1 }, logger);
    const d = submitter(f, {}, undefined, { altDa });
    await d.tick();
    f.l1Head = 101;
    await d.tick();
    await new Promise((r) => setTimeout(r, 50));
    expect(f.sent).toHaveLength(0);
    await server.start();
    try {
      // The failed channel is rebuilt and closes again after its max duration.
      for (let i = 0; i < 50 && f.sent.length === 0; i++) {
        f.l1Head++;
        await d.tick();
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(f.sent).toHaveLength(1);
      expect(decodeCommitmentTxData(f.sent[0]?.data as Uint8Array).type).toBe(KECCAK_COMMITMENT);
    } finally {
      await server.stop();
    }
  });

  it('loads blocks from the safe head, closes the channel on max duration and posts it to the inbox', async () => {
    const f = new Fakes();
    f.l2Blocks = await chainOf(5, 'a');
    const d = submitter(f, { batchType: 1, compressionAlgo: 'brotli' });
    await d.tick();
    expect(d.channels.tip?.number).toBe(5);
    expect(f.sent).toHaveLength(0); // channel open at L1 block 100
    f.l1Head = 101;
    await d.tick();
    await new Promise((r) => setTimeout(r, 10));
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]?.to).toBe(INBOX);
    const decoded = await decodeBatches(
      f.sent.map((c) => c.data),
      { blockTime: 2, genesisTime: GENESIS_TIME, chainId: L2_CHAIN_ID },
    );
    expect(decoded.map((x) => x.txHashes)).toEqual(f.l2Blocks.map(userTxsOf));
    expect(decoded.every((x) => x.batchType === 1 && x.compression === 'brotli')).toBe(true);
  });

  it('falls back to singular batches and zlib before Delta and Fjord', async () => {
    const f = new Fakes();
    f.l2Blocks = await chainOf(2, 'b');
    const d = submitter(f, { batchType: 1, compressionAlgo: 'brotli-11' }, {});
    await d.tick();
    f.l1Head = 101;
    await d.tick();
    await new Promise((r) => setTimeout(r, 10));
    const decoded = await decodeBatches([f.sent[0]?.data as Uint8Array], {
      blockTime: 2,
      genesisTime: GENESIS_TIME,
      chainId: L2_CHAIN_ID,
    });
    expect(decoded.every((x) => x.batchType === 0 && x.compression === 'zlib')).toBe(true);
    expect(parseFrames(f.sent[0]?.data as Uint8Array)).toHaveLength(1);
  });

  it('an L2 reorg clears the queue and loads again from the safe head', async () => {
    const f = new Fakes();
    const a = await chainOf(4, 'a');
    f.l2Blocks = a;
    const d = submitter(f, { maxChannelDuration: 0 });
    await d.tick();
    expect(d.channels.tip?.hash).toBe(a[3]?.hash);
    // Blocks 3.. are replaced, and one more is added.
    const fork = await chainOf(3, 'fork', 3, String(a[1]?.hash), GENESIS_TIME + 6);
    f.l2Blocks = [...a.slice(0, 2), ...fork];
    await d.tick(); // block 5 does not build on the old block 4
    expect(d.channels.tip).toBeUndefined();
    await d.tick();
    expect(d.channels.tip?.hash).toBe(fork[2]?.hash);
    expect(d.channels.pendingBlocks).toBe(5);
  });

  it('a safe head past the queued blocks starts over from it', async () => {
    const f = new Fakes();
    f.l2Blocks = await chainOf(3, 'c');
    const d = submitter(f, { maxChannelDuration: 0 });
    await d.tick();
    f.l2Blocks = [...f.l2Blocks, ...(await chainOf(3, 'd', 4, String(f.l2Blocks[2]?.hash), GENESIS_TIME + 8))];
    const safe = f.l2Blocks[4] as Record<string, string>;
    f.safe = { hash: safe.hash, number: 5 };
    await d.tick();
    expect(d.channels.pendingBlocks).toBe(1);
    expect(d.channels.tip?.number).toBe(6);
  });

  /** Two channels (L2 blocks 1-3 and 4-6), confirmed in L1 blocks 101 and 102. */
  async function twoSubmitted(f: Fakes) {
    const a = await chainOf(3, 'ra');
    const b = await chainOf(3, 'rb', 4, String(a[2]?.hash), GENESIS_TIME + 8);
    f.l2Blocks = a;
    const d = submitter(f);
    await d.tick(); // channel A opened at L1 100
    f.l1Head = 101;
    await d.tick(); // A closes (max duration) and lands in 101
    await settle();
    f.l2Blocks = [...a, ...b];
    await d.tick(); // channel B opened at 101
    f.l1Head = 102;
    await d.tick(); // B lands in 102
    await settle();
    expect(f.sent).toHaveLength(2);
    expect(d.channels.submittedCount).toBe(2);
    expect(d.channels.pendingBlocks).toBe(0);
    return d;
  }
  const settle = () => new Promise((r) => setTimeout(r, 10));
  const decode = (cs: TxCandidate[]) =>
    decodeBatches(
      cs.map((c) => c.data),
      { blockTime: 2, genesisTime: GENESIS_TIME, chainId: L2_CHAIN_ID },
    );

  it('a confirmed batch transaction reorged out of L1 gets its channel, and every later one, rebuilt and resent', async () => {
    const f = new Fakes();
    const d = await twoSubmitted(f);
    await d.tick(); // still canonical: nothing happens
    expect(d.channels.submittedCount).toBe(2);
    expect(f.sent).toHaveLength(2);
    // L1 reorgs from block 101: both inclusion blocks are gone (the new chain is longer).
    f.reorgL1(101);
    f.l1Head = 103;
    await d.tick();
    expect(d.channels.submittedCount).toBe(0);
    expect(f.nonceResets).toBe(1);
    expect(d.channels.pendingBlocks).toBe(6);
    f.l1Head = 104;
    await d.tick(); // the rebuilt channel closes and goes out
    await settle();
    const resent = f.sent.slice(2);
    expect(resent.length).toBeGreaterThan(0);
    const old = await decode(f.sent.slice(0, 2));
    const again = await decode(resent);
    expect(again.map((x) => x.txHashes)).toEqual(f.l2Blocks.map(userTxsOf));
    expect(old.map((x) => x.txHashes)).toEqual(again.map((x) => x.txHashes));
    expect(parseFrames(resent[0]?.data as Uint8Array)[0]?.id).not.toEqual(
      parseFrames(f.sent[0]?.data as Uint8Array)[0]?.id,
    );
    // The new inclusion (block 104 of the new fork) is watched in turn.
    expect(d.channels.submittedCount).toBe(1);
  });

  it('a reorg of only the newest inclusion block rebuilds only the channels from there on', async () => {
    const f = new Fakes();
    const d = await twoSubmitted(f);
    f.reorgL1(102);
    await d.tick();
    expect(d.channels.submittedCount).toBe(1);
    expect(d.channels.pendingBlocks).toBe(3);
    f.l1Head = 103;
    await d.tick();
    await settle();
    const again = await decode(f.sent.slice(2));
    expect(again.map((x) => x.txHashes)).toEqual(f.l2Blocks.slice(3).map(userTxsOf));
  });

  it('a reorg that shortens L1 below the inclusion block is noticed too', async () => {
    const f = new Fakes();
    const d = await twoSubmitted(f);
    f.reorgL1(101);
    f.l1Head = 100;
    await d.tick();
    expect(d.channels.submittedCount).toBe(0);
    expect(d.channels.pendingBlocks).toBe(6);
  });

  it('forgets submitted channels once safe past their L1 blocks, or after channel_timeout', async () => {
    const f = new Fakes();
    const d = await twoSubmitted(f);
    const b3 = f.l2Blocks[2] as Record<string, string>;
    // Safe up to A's last block, derived from L1 past A's inclusion block: A can go, B stays.
    f.safe = { hash: b3.hash, number: 3, l1origin: { hash: f.l1HashOf(102), number: 102 } };
    await d.tick();
    expect(d.channels.submittedCount).toBe(1);
    f.l1Head = 102 + 300 + 1; // channel_timeout past B's inclusion
    await d.tick();
    expect(d.channels.submittedCount).toBe(0);
    // Nothing is watched any more: a reorg now changes nothing.
    f.reorgL1(101);
    await d.tick();
    expect(f.nonceResets).toBe(0);
  });

  it('a safe head that moves backwards starts over from it', async () => {
    const f = new Fakes();
    const d = await twoSubmitted(f);
    const b3 = f.l2Blocks[2] as Record<string, string>;
    f.safe = { hash: b3.hash, number: 3 };
    await d.tick();
    expect(d.channels.submittedCount).toBe(2);
    f.safe = { hash: GENESIS_HASH, number: 0 }; // the node reset (an L1 reorg took the batches away)
    await d.tick();
    expect(d.channels.submittedCount).toBe(0);
    expect(d.channels.pendingBlocks).toBe(6);
    expect(f.nonceResets).toBe(1);
  });

  it('stopped: admin start/stop', async () => {
    const f = new Fakes();
    const d = submitter(f, { stopped: true });
    expect(d.isRunning).toBe(false);
    d.startBatcher();
    expect(d.isRunning).toBe(true);
    expect(() => d.startBatcher()).toThrow(/already running/);
    d.stopBatcher();
    expect(d.isRunning).toBe(false);
  });
});
