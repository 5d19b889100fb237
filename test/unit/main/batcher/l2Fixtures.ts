// Fake L2 blocks as an execution client serves them (eth_getBlockByNumber with full transactions): an L1-info
// deposit first, then user transactions signed by viem (legacy EIP-155, EIP-2930, EIP-1559), hashes chained.
import { createHash } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { L1_INFO_DEPOSITOR, l1InfoDepositTx } from '../../../../src/main/primitives/op/l1Info.js';
import { decodeTransaction } from '../../../../src/main/primitives/tx/decode.js';
import { encodeDepositTx } from '../../../../src/main/primitives/tx/deposit/deposit.js';
import { txToJson } from '../../../../src/main/primitives/tx/json.js';

export const L2_CHAIN_ID = 901n;
const USER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const user = privateKeyToAccount(USER_KEY);

const qty = (n: number | bigint) => `0x${n.toString(16)}`;
const fakeHash = (seed: string) => `0x${createHash('sha256').update(seed).digest('hex')}`;

export interface Epoch {
  number: number;
  hash: string;
  time: number;
}

export interface FakeChainOptions {
  count: number;
  /** Number of the first block (its parent is `parentHash`). */
  first: number;
  parentHash: string;
  timestamp0: number;
  blockTime: number;
  /** L1 origin of each block. */
  epochOf: (i: number) => Epoch;
  /** User transactions per block. */
  txs: (i: number) => number;
  /** Fills calldata with this many random bytes per transaction (incompressible). */
  dataBytes?: number;
  seed?: string;
}

let nonce = 0;

/** Deterministic incompressible bytes. */
function randomHex(seed: string, n: number): `0x${string}` {
  let out = '';
  for (let i = 0; out.length < n * 2; i++) out += createHash('sha256').update(`${seed}/${i}`).digest('hex');
  return `0x${out.slice(0, n * 2)}`;
}

/** Builds the blocks (RPC JSON form). */
export async function fakeL2Chain(o: FakeChainOptions): Promise<Record<string, unknown>[]> {
  const blocks: Record<string, unknown>[] = [];
  let parent = o.parentHash;
  let seq = 0;
  let lastEpoch = -1;
  for (let i = 0; i < o.count; i++) {
    const number = o.first + i;
    const epoch = o.epochOf(i);
    seq = epoch.number === lastEpoch ? seq + 1 : 0;
    lastEpoch = epoch.number;
    const deposit = l1InfoDepositTx(
      {
        number: BigInt(epoch.number),
        time: BigInt(epoch.time),
        baseFee: 7n,
        blockHash: Uint8Array.from(Buffer.from(epoch.hash.slice(2), 'hex')),
        sequenceNumber: BigInt(seq),
        batcherHash: new Uint8Array(32),
        blobBaseFee: 1n,
        baseFeeScalar: 0n,
        blobBaseFeeScalar: 0n,
      },
      'ecotone',
      true,
    );
    const depRaw = encodeDepositTx(deposit);
    const txs: Record<string, unknown>[] = [txToJson(decodeTransaction(depRaw), L1_INFO_DEPOSITOR)];
    for (let t = 0; t < o.txs(i); t++) {
      const data = o.dataBytes ? randomHex(`${o.seed ?? ''}${number}:${t}`, o.dataBytes) : ('0x' as const);
      const kind = (number + t) % 3;
      const base = {
        to: '0x000000000000000000000000000000000000dEaD' as const,
        value: BigInt(t + 1),
        nonce: nonce++,
        gas: 100_000n,
        data,
      };
      const raw =
        kind === 0
          ? await user.signTransaction({
              ...base,
              chainId: Number(L2_CHAIN_ID),
              type: 'legacy',
              gasPrice: 1_000_000_000n,
            })
          : kind === 1
            ? await user.signTransaction({
                ...base,
                chainId: Number(L2_CHAIN_ID),
                type: 'eip2930',
                gasPrice: 2n,
                accessList: [
                  {
                    address: '0x00000000000000000000000000000000000000aa',
                    storageKeys: [fakeHash('k')] as `0x${string}`[],
                  },
                ],
              })
            : await user.signTransaction({
                ...base,
                chainId: Number(L2_CHAIN_ID),
                type: 'eip1559',
                maxFeePerGas: 3_000_000_000n,
                maxPriorityFeePerGas: 1n,
              });
      const bytes = Uint8Array.from(Buffer.from(raw.slice(2), 'hex'));
      txs.push(txToJson(decodeTransaction(bytes), Uint8Array.from(Buffer.from(user.address.slice(2), 'hex'))));
    }
    const hash = fakeHash(`${o.seed ?? ''}block${number}:${parent}`);
    blocks.push({
      number: qty(number),
      hash,
      parentHash: parent,
      timestamp: qty(o.timestamp0 + i * o.blockTime),
      transactions: txs,
    });
    parent = hash;
  }
  return blocks;
}

/** Raw bytes of the non-deposit transactions of an RPC block (the source of truth for comparisons). */
export function userTxsOf(block: Record<string, unknown>): string[] {
  return (block.transactions as Record<string, unknown>[]).filter((t) => t.type !== '0x7e').map((t) => String(t.hash));
}
