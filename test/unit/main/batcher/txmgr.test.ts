import { describe, expect, it } from 'vitest';
import { blobSidecar, signerFromPrivateKey } from '../../../../src/main/batcher/l1Tx.js';
import { txManagerDefaults } from '../../../../src/main/batcher/options.js';
import { type L1Rpc, TxManager } from '../../../../src/main/batcher/txmgr.js';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { splitBlobTx } from '../../../../src/main/exec/txpool/sidecar.js';
import { type DecodedTx, decodeTransaction } from '../../../../src/main/primitives/tx/decode.js';
import { encodeBlobData } from '../../../../src/main/protocol/blob/blobData.js';

const logger = createLogger({ level: 'silent', format: 'logfmt', stream: { write: () => true } }).logger;
const signer = signerFromPrivateKey('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const INBOX = '0xff00000000000000000000000000000000000901';
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const qty = (n: number | bigint) => `0x${n.toString(16)}`;

/** An L1 that records what is sent and mines only when the test says so. */
class FakeL1 implements L1Rpc {
  head = 10;
  nonce = 0;
  sent: DecodedTx[] = [];
  receipts = new Map<string, number>();
  sendError: ((tx: DecodedTx) => string | undefined) | undefined;
  onSend: ((tx: DecodedTx) => void) | undefined;

  async call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    const r = (v: unknown) => v as T;
    switch (method) {
      case 'eth_chainId':
        return r('0x384');
      case 'eth_getTransactionCount':
        return r(qty(this.nonce));
      case 'eth_maxPriorityFeePerGas':
        return r('0x3b9aca00');
      case 'eth_getBlockByNumber':
        return r({ number: qty(this.head), baseFeePerGas: '0x64', timestamp: '0x1' });
      case 'eth_blobBaseFee':
        return r('0x5');
      case 'eth_blockNumber':
        return r(qty(this.head));
      case 'eth_sendRawTransaction': {
        const raw = Uint8Array.from(Buffer.from(String(params[0]).slice(2), 'hex'));
        const tx = decodeTransaction(raw[0] === 3 ? splitBlobTx(raw).consensus : raw);
        const err = this.sendError?.(tx);
        if (err) throw new Error(err);
        this.sent.push(tx);
        this.onSend?.(tx);
        return r(hex(tx.hash));
      }
      case 'eth_getTransactionReceipt': {
        const n = this.receipts.get(String(params[0]));
        return r(n === undefined ? null : { blockNumber: qty(n), blockHash: `0x${'22'.repeat(32)}`, status: '0x1' });
      }
      default:
        throw new Error(`unexpected ${method}`);
    }
  }

  mine(tx: DecodedTx, confirmations = 0): void {
    this.head++;
    this.receipts.set(hex(tx.hash), this.head);
    this.head += confirmations;
  }
}

const opts = {
  ...txManagerDefaults,
  numConfirmations: 3,
  resubmissionTimeoutMs: 40,
  receiptQueryIntervalMs: 5,
};

const candidate = { to: INBOX, data: Uint8Array.of(0, 1, 2, 3), gasLimit: 30_000n };

describe('TxManager', () => {
  it('replaces an unmined transaction with bumped fees at the same nonce, then waits for confirmations', async () => {
    const l1 = new FakeL1();
    l1.nonce = 7;
    l1.onSend = (tx) => {
      if (l1.sent.length === 2) setTimeout(() => l1.mine(tx, 1), 5); // 2 confirmations: not yet enough
    };
    const mgr = new TxManager(opts, { l1, signer, logger });
    const pending = mgr.send(candidate);
    await new Promise((r) => setTimeout(r, 100));
    expect(l1.sent).toHaveLength(2);
    l1.head++; // third confirmation
    const receipt = await pending;
    const [a, b] = l1.sent as [DecodedTx, DecodedTx];
    expect(a.nonce).toBe(7n);
    expect(b.nonce).toBe(7n);
    expect(b.maxPriorityFeePerGas).toBeGreaterThanOrEqual(((a.maxPriorityFeePerGas as bigint) * 110n) / 100n);
    expect(b.maxFeePerGas).toBeGreaterThanOrEqual(((a.maxFeePerGas as bigint) * 110n) / 100n);
    expect(receipt.txHash).toBe(hex(b.hash));
    expect(receipt.success).toBe(true);
    // The next send uses the next nonce.
    l1.onSend = (tx) => setTimeout(() => l1.mine(tx, 5), 1);
    await mgr.send(candidate);
    expect(l1.sent[2]?.nonce).toBe(8n);
  });

  it('bumps blob transactions by 100 % on every fee', async () => {
    const l1 = new FakeL1();
    l1.onSend = (tx) => {
      if (l1.sent.length === 2) setTimeout(() => l1.mine(tx, 5), 1);
    };
    const mgr = new TxManager(opts, { l1, signer, logger });
    const sidecar = blobSidecar([encodeBlobData(Uint8Array.of(0, 1, 2))], false);
    await mgr.send({ to: INBOX, data: new Uint8Array(0), gasLimit: 21_000n, sidecar });
    const [a, b] = l1.sent as [DecodedTx, DecodedTx];
    expect(a.type).toBe(3);
    expect(b.maxFeePerBlobGas).toBeGreaterThanOrEqual((a.maxFeePerBlobGas as bigint) * 2n);
    expect(b.maxPriorityFeePerGas).toBeGreaterThanOrEqual((a.maxPriorityFeePerGas as bigint) * 2n);
    expect(b.maxFeePerGas).toBeGreaterThanOrEqual((a.maxFeePerGas as bigint) * 2n);
  });

  it('sends again when an included transaction is reorged out of L1', async () => {
    const l1 = new FakeL1();
    l1.onSend = (tx) => {
      if (l1.sent.length === 1) setTimeout(() => l1.mine(tx), 1);
    };
    const mgr = new TxManager({ ...opts, resubmissionTimeoutMs: 10_000 }, { l1, signer, logger });
    const pending = mgr.send(candidate);
    await new Promise((r) => setTimeout(r, 30));
    expect(l1.receipts.size).toBe(1);
    l1.receipts.clear(); // the block holding it is gone
    l1.onSend = (tx) => setTimeout(() => l1.mine(tx, 3), 1);
    const receipt = await pending;
    expect(l1.sent).toHaveLength(2);
    expect(hex((l1.sent[1] as DecodedTx).hash)).toBe(hex((l1.sent[0] as DecodedTx).hash)); // the same transaction
    expect(receipt.txHash).toBe(hex((l1.sent[0] as DecodedTx).hash));
  });

  it('gives up after repeated "nonce too low" with nothing of ours accepted, and asks for the nonce again', async () => {
    const l1 = new FakeL1();
    l1.sendError = (tx) => (tx.nonce < 3n ? 'nonce too low' : undefined);
    const mgr = new TxManager({ ...opts, resubmissionTimeoutMs: 5 }, { l1, signer, logger });
    await expect(mgr.send(candidate)).rejects.toThrow(/nonce/);
    l1.nonce = 3;
    l1.onSend = (tx) => setTimeout(() => l1.mine(tx, 5), 1);
    await mgr.send(candidate);
    expect(l1.sent.at(-1)?.nonce).toBe(3n);
  });

  it('stops bumping at the fee limit and sends the same transaction again', async () => {
    const l1 = new FakeL1();
    l1.onSend = (tx) => {
      if (l1.sent.length === 3) setTimeout(() => l1.mine(tx, 5), 1);
    };
    const mgr = new TxManager({ ...opts, feeLimitMultiplier: 1 }, { l1, signer, logger });
    await mgr.send(candidate);
    const hashes = l1.sent.map((t) => hex(t.hash));
    expect(new Set(hashes).size).toBe(1);
  });

  it('a refused first send fails at once', async () => {
    const l1 = new FakeL1();
    l1.sendError = () => 'insufficient funds for gas * price + value';
    const mgr = new TxManager(opts, { l1, signer, logger });
    await expect(mgr.send(candidate)).rejects.toThrow(/insufficient funds/);
  });
});
