// The stateless and stateful checks on their own, for the cases a signing library will not produce.
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { validateBasics, validateWithState } from '../../../../../src/main/exec/txpool/validate.js';
import type { DecodedTx } from '../../../../../src/main/primitives/tx/decode.js';
import { config, header } from './fakeChain.js';

const base: DecodedTx = {
  type: 2,
  chainId: config.chainId,
  nonce: 0n,
  gasLimit: 21_000n,
  to: new Address(new Uint8Array(20)),
  value: 0n,
  data: new Uint8Array(0),
  maxFeePerGas: 10n,
  maxPriorityFeePerGas: 1n,
  accessList: [],
  v: 0n,
  r: 1n,
  s: 1n,
  hash: new Uint8Array(32),
  raw: new Uint8Array(0),
};
const opts = { config, head: header(1n, new Uint8Array(32)), maxSize: 131_072, minTip: 1n, maxTxGas: 0n, maxBlobs: 6 };
const why = (f: () => void) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('validateBasics', () => {
  it("answers geth's messages", () => {
    expect(why(() => validateBasics(base, 100, opts))).toBe('accepted');
    expect(why(() => validateBasics({ ...base, maxPriorityFeePerGas: 11n }, 100, opts))).toBe(
      'max priority fee per gas higher than max fee per gas',
    );
    expect(why(() => validateBasics({ ...base, maxFeePerGas: 1n << 256n, maxPriorityFeePerGas: 1n }, 100, opts))).toBe(
      'max fee per gas higher than 2^256-1',
    );
    expect(why(() => validateBasics(base, 131_073, opts))).toBe(
      'oversized data: transaction size 131073, limit 131072',
    );
    expect(why(() => validateBasics({ ...base, type: 4, authorizationList: [] }, 100, opts))).toMatch(
      /^transaction type not supported: type 4 rejected, pool not yet in Prague/,
    );
    expect(why(() => validateBasics({ ...base, type: 3, blobVersionedHashes: [] }, 100, opts))).toBe(
      'blobless blob transaction',
    );
    expect(why(() => validateBasics({ ...base, gasLimit: 50_000n }, 100, { ...opts, maxTxGas: 40_000n }))).toMatch(
      /gas limit exceeds the pool maximum/,
    );
    expect(
      why(() =>
        validateBasics({ ...base, to: undefined, data: new Uint8Array(49_153), gasLimit: 10_000_000n }, 100, opts),
      ),
    ).toMatch(/^max initcode size exceeded/);
  });
});

describe('validateWithState', () => {
  const s = { nonce: 3n, balance: 1_000_000n, spent: 0n, replacedCost: undefined, used: 0, hasRoom: true };
  it('checks nonce, funds with pooled spending, replacement bumps and blob gaps', () => {
    expect(why(() => validateWithState({ ...base, nonce: 2n }, s))).toBe('nonce too low: next nonce 3, tx nonce 2');
    expect(why(() => validateWithState({ ...base, nonce: 3n }, { ...s, balance: 1000n }))).toMatch(
      /^insufficient funds for gas \* price \+ value: balance 1000, tx cost 210000, overshot 209000/,
    );
    expect(why(() => validateWithState({ ...base, nonce: 3n }, { ...s, spent: 900_000n }))).toMatch(
      /queued cost 900000/,
    );
    expect(
      why(() => validateWithState({ ...base, nonce: 3n }, { ...s, spent: 900_000n, replacedCost: 100_000n })),
    ).toMatch(/tx bumped 110000/);
    expect(why(() => validateWithState({ ...base, nonce: 5n }, { ...s, firstGap: 4n }))).toBe(
      'nonce too high: tx nonce 5, gapped nonce 4',
    );
    expect(why(() => validateWithState({ ...base, nonce: 3n }, { ...s, hasRoom: false, used: 16 }))).toBe(
      'account limit exceeded: pooled 16 txs',
    );
  });
});
