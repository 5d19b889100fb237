import { createHash } from 'node:crypto';
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { processBlock } from '../../../../../src/main/exec/chain/processBlock.js';
import {
  CONSOLIDATION_QUEUE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  WITHDRAWAL_QUEUE_ADDRESS,
} from '../../../../../src/main/exec/evm/system.js';
import { Executor } from '../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { EMPTY_UNCLE_HASH, type Header } from '../../../../../src/main/primitives/block/header.js';
import { toHexKey } from '../../../../../src/main/primitives/bytes.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { createKzg } from '../../../../../src/main/protocol/crypto/kzg.js';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
// Stores its calldata's first word in slot 0.
const STORE_INPUT = hex('60003560005500');
// Returns the 3 bytes 0xaabbcc: PUSH3 aabbcc PUSH1 0 MSTORE PUSH1 3 PUSH1 29 RETURN
const RETURN_3 = hex('62aabbcc6000526003601df3');
// Returns nothing.
const RETURN_0 = hex('00');

class Reader implements StateReader {
  constructor(private readonly codes: Map<string, Uint8Array>) {}
  getAccount(address: Uint8Array): AccountRecord | undefined {
    const code = this.codes.get(toHexKey(address));
    return code === undefined ? undefined : { nonce: 1n, balance: 0n, codeHash: keccak256(code) };
  }
  getStorage() {
    return 0n;
  }
  getCode(hash: Uint8Array) {
    for (const c of this.codes.values()) if (toHexKey(keccak256(c)) === toHexKey(hash)) return c;
    return new Uint8Array(0);
  }
}

const config = parseChainConfig({
  chainId: 1337,
  londonBlock: 0,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
  pragueTime: 0,
});
const header: Header = {
  parentHash: keccak256(Uint8Array.of(1)),
  uncleHash: EMPTY_UNCLE_HASH,
  coinbase: new Uint8Array(20),
  stateRoot: new Uint8Array(32),
  transactionsRoot: new Uint8Array(32),
  receiptsRoot: new Uint8Array(32),
  logsBloom: new Uint8Array(256),
  difficulty: 0n,
  number: 1n,
  gasLimit: 30_000_000n,
  gasUsed: 0n,
  timestamp: 12n,
  extraData: new Uint8Array(0),
  mixHash: new Uint8Array(32),
  nonce: new Uint8Array(8),
  baseFeePerGas: 7n,
  withdrawalsRoot: new Uint8Array(32),
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: new Uint8Array(32),
  requestsHash: new Uint8Array(32),
};

async function run(contracts: Array<[Address, Uint8Array]>) {
  const common = createCustomCommon({ chainId: 1337 }, Mainnet, { customCrypto: { kzg: createKzg() } });
  const state = new FlatState(new Reader(new Map(contracts.map(([a, c]) => [toHexKey(a.bytes), c]))));
  const executor = await Executor.create({ common, state });
  const outcome = await processBlock({
    executor,
    config,
    block: { header, transactions: [], uncles: [], withdrawals: [] },
    senders: [],
    getBlockHash: () => undefined,
  });
  return { state, outcome };
}

describe('processBlock: Prague block rules', () => {
  it('stores the parent hash (EIP-2935) and hashes the EIP-7002/7251 queue outputs (EIP-7685)', async () => {
    const { state, outcome } = await run([
      [HISTORY_STORAGE_ADDRESS, STORE_INPUT],
      [WITHDRAWAL_QUEUE_ADDRESS, RETURN_3],
      [CONSOLIDATION_QUEUE_ADDRESS, RETURN_0],
    ]);
    const slot0 = state.getStorageValue(HISTORY_STORAGE_ADDRESS.bytes, new Uint8Array(32));
    expect(slot0).toBe(BigInt(`0x${Buffer.from(header.parentHash).toString('hex')}`));
    const inner = createHash('sha256').update(hex('01aabbcc')).digest();
    const want = new Uint8Array(createHash('sha256').update(inner).digest());
    expect(outcome.requestsHash).toEqual(want);
    expect(outcome.requests).toEqual([hex('01aabbcc')]);
  });

  it('makes the block invalid when a request contract has no code', async () => {
    await expect(run([[WITHDRAWAL_QUEUE_ADDRESS, RETURN_3]])).rejects.toThrow(/consolidation request contract/);
  });
});
