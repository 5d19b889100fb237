// --txpool.journal / --txpool.journalremotes / --txpool.rejournal: local transactions survive a restart, remotes
// only when asked, and a torn last entry does not stop the load; the blob store keeps blob transactions and
// their sidecars across a restart too (--blobpool.datadir).
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { TxJournal } from '../../../../../src/main/exec/txpool/journal.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { splitBlobTx } from '../../../../../src/main/exec/txpool/sidecar.js';
import { recoverSender } from '../../../../../src/main/protocol/senders/recover.js';
import { EXECUTION_APIS } from '../rpc/chain.js';
import { FakeChain, type Key, keys, tx } from './fakeChain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-txpool-'));
const [A, B] = keys as [Key, Key];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function chain(): FakeChain {
  const c = new FakeChain();
  // The execution-apis blob transaction pays a fee cap far below 1 gwei: a head it can be admitted at.
  c.head = { ...c.head, header: { ...c.head.header, baseFeePerGas: 1n } };
  for (const k of keys) c.fund(k.address, 10n ** 18n);
  c.fund(`0x${Buffer.from(recoverSender(splitBlobTx(blobTx()).consensus)).toString('hex')}`, 10n ** 20n);
  return c;
}

describe('journal', () => {
  it('reloads pending and queued locals after a restart, not remotes', async () => {
    const journal = join(dir, 'a', 'transactions.rlp');
    const c = chain();
    const p1 = await TernTxPool.open(c, { journal }, { logger });
    await p1.add(await tx(A, { nonce: 0 }), { local: true });
    await p1.add(await tx(A, { nonce: 2 }), { local: true });
    await p1.add(await tx(B, { nonce: 0 }));
    await p1.close();
    expect(new TxJournal(journal).load()).toHaveLength(2);
    const p2 = await TernTxPool.open(c, { journal }, { logger });
    expect(p2.status()).toEqual({ pending: 1, queued: 1 });
    await p2.close();
  });

  it('journals remotes with --txpool.journalremotes and survives a torn tail', async () => {
    const journal = join(dir, 'b', 'transactions.rlp');
    const c = chain();
    const p1 = await TernTxPool.open(c, { journal, journalRemotes: true }, { logger });
    await p1.add(await tx(B, { nonce: 0 }));
    await p1.add(await tx(A, { nonce: 0 }), { local: true });
    await p1.close();
    appendFileSync(journal, Buffer.from([0xf8, 0x70, 0x01]));
    const p2 = await TernTxPool.open(c, { journal }, { logger });
    expect(p2.status().pending).toBe(2);
    await p2.close();
  });

  it('the rejournal drops what left the pool', async () => {
    const journal = join(dir, 'c', 'transactions.rlp');
    const c = chain();
    const p1 = await TernTxPool.open(c, { journal }, { logger });
    await p1.add(await tx(A, { nonce: 0 }), { local: true });
    await p1.add(await tx(A, { nonce: 1 }), { local: true });
    c.setNonce(A.address, 1n);
    c.advance();
    await p1.onNewHead();
    p1.rejournal();
    expect(new TxJournal(journal).load()).toHaveLength(1);
    await p1.close();
  });

  it('--txpool.nolocals: no journal is written', async () => {
    const journal = join(dir, 'd', 'transactions.rlp');
    const p = await TernTxPool.open(chain(), { journal, noLocals: true }, { logger });
    await p.add(await tx(A, { nonce: 0 }), { local: true });
    await p.close();
    expect(new TxJournal(journal).load()).toHaveLength(0);
  });
});

const blobTx = (): Uint8Array => {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', 'send-blob-tx.io'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  const hexTx = (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
  return Uint8Array.from(Buffer.from(hexTx.slice(2), 'hex'));
};

describe('blob pool', () => {
  it('keeps the sidecar, refuses a bare blob transaction and a corrupted proof', async () => {
    const p = await TernTxPool.open(chain(), {}, { logger });
    const raw = blobTx();
    const r = await p.add(raw);
    expect(r.ok ? 'ok' : r.message).toBe('ok');
    if (!r.ok) return;
    expect(p.blobSidecar(r.hash)?.blobs).toHaveLength(1);
    const pooled = p.get(r.hash);
    expect(pooled && p.networkForm(pooled)).toEqual(raw);
    // The builder sees it only when blobs are allowed and paid for.
    expect([...p.pendingForBlock({ baseFee: 1n, gasLimit: 30_000_000n })]).toHaveLength(0);
    expect([...p.pendingForBlock({ baseFee: 1n, blobBaseFee: 1n, gasLimit: 30_000_000n })]).toHaveLength(1);
    const bare = p.get(r.hash)?.tx.raw as Uint8Array;
    const p2 = await TernTxPool.open(chain(), {}, { logger });
    const noSidecar = await p2.add(bare);
    expect(noSidecar.ok ? '' : noSidecar.message).toBe('missing sidecar in blob transaction');
    const corrupt = raw.slice();
    corrupt[corrupt.length - 5] = (corrupt[corrupt.length - 5] as number) ^ 1;
    const bad = await p2.add(corrupt);
    expect(bad.ok ? '' : bad.message).toMatch(/invalid blob proof/);
    await p.close();
    await p2.close();
  });

  it('keeps blob transactions across a restart in --blobpool.datadir and enforces --blobpool.datacap', async () => {
    const blobDataDir = join(dir, 'blobpool');
    const c = chain();
    const p1 = await TernTxPool.open(c, { blobDataDir }, { logger });
    expect((await p1.add(blobTx())).ok).toBe(true);
    await p1.close();
    expect(readdirSync(blobDataDir)).toHaveLength(1);
    const p2 = await TernTxPool.open(c, { blobDataDir }, { logger });
    expect(p2.status().pending).toBe(1);
    await p2.close();
    const p3 = await TernTxPool.open(chain(), { blobDataCap: 1000 }, { logger });
    const r = await p3.add(blobTx());
    expect(r.ok ? '' : r.message).toBe('transaction underpriced');
    expect(p3.status().pending).toBe(0);
    await p3.close();
  });
});
