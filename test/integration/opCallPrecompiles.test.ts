// biome-ignore-all lint/suspicious/noExplicitAny: the test reads JSON-RPC answers
// eth_call and eth_estimateGas run the OP precompile set a block runs (evm/executor.ts builds both environments):
// on an OP chain with Fjord and Granite at genesis, P256VERIFY (RIP-7212, 0x…0100) answers a valid signature with
// 32 bytes of 1, and the Granite bn256Pairing input limit fails an oversized input in eth_call exactly as it fails
// the same input in a block built and imported through the Engine API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/main/common/rpc/client.js';
import type { CallPool } from '../../src/main/exec/rpc/call.js';
import { createCallPool } from '../../src/main/exec/rpc/callPool.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { batcherHashFromAddress, l1InfoDepositTx } from '../../src/main/primitives/op/l1Info.js';
import { encodeDepositTx } from '../../src/main/primitives/tx/deposit/deposit.js';
import { P256VERIFY_ADDRESS, P256VERIFY_SUCCESS, P256VERIFY_VALID_INPUT } from '../helpers/rip7212.js';
import { addressOf, privKey, signTx } from '../unit/main/node/derive/l1Fake.js';
import {
  bytes,
  type ExecNode,
  hex,
  opGenesisJson,
  PREDEPLOY,
  serveAuthRpc,
  silentLogger,
  startExec,
} from './opGenesis.js';

const CHAIN_ID = 901n;
const GAS_LIMIT = 30_000_000n;
const alice = privKey(0xa7);
const ALICE = addressOf(alice);
const BN256_PAIRING = '0x0000000000000000000000000000000000000008';

// 587 pairs of points at infinity: 112,704 bytes, over Granite's 112,687-byte limit. Without the limit the pairing
// holds (output 1) for 45,000 + 587 · 34,000 gas, which the gas given here covers; with it, all gas is consumed.
const PAIRING_INPUT = new Uint8Array(587 * 192);
const PAIRING_GAS = 25_000_000n;

const q = (n: bigint | number) => `0x${n.toString(16)}`;

// Over the inline executor and over the call workers: the same answers.
describe.each([
  ['inline', false],
  ['call workers', true],
] as const)('eth_call on an OP chain runs the OP precompiles a block runs (%s)', (_name, pooled) => {
  let exec: ExecNode;
  let pool: CallPool | undefined;
  let rpc: RpcClient;
  let stop: () => Promise<void>;
  const secret = new Uint8Array(32).fill(0x6b);
  const call = <T = any>(method: string, params: unknown[]) => rpc.call<T>(method, params);

  beforeAll(async () => {
    exec = await startExec(
      opGenesisJson({
        chainId: CHAIN_ID,
        timestamp: 0,
        gasLimit: GAS_LIMIT,
        forks: { canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0 },
        funded: { [ALICE]: 10n ** 18n },
      }),
    );
    pool = pooled ? createCallPool(2, silentLogger()) : undefined;
    if (pooled) expect(pool).toBeDefined();
    const srv = await serveAuthRpc(exec, secret, pool);
    stop = srv.stop;
    rpc = new RpcClient({ url: srv.url, jwtSecret: secret, timeoutMs: 60_000 }, { logger: silentLogger() });
  });
  afterAll(async () => {
    await rpc?.close();
    await stop?.();
    await pool?.close();
    await exec?.close();
  });

  it('eth_call to P256VERIFY with a valid RIP-7212 input returns 0x…01', async () => {
    expect(await call('eth_call', [{ to: P256VERIFY_ADDRESS, data: P256VERIFY_VALID_INPUT }, 'latest'])).toBe(
      P256VERIFY_SUCCESS,
    );
    // The public key's y changed in its last bit: off the curve, so empty output, not an error (RIP-7212).
    const bad = `${P256VERIFY_VALID_INPUT.slice(0, -1)}f`;
    expect(await call('eth_call', [{ to: P256VERIFY_ADDRESS, data: bad }, 'latest'])).toBe('0x');
  });

  it('eth_estimateGas pays the precompile’s 3450 gas on top of the intrinsic gas', async () => {
    const data = bytes(P256VERIFY_VALID_INPUT);
    const zeros = BigInt(data.filter((b) => b === 0).length);
    const intrinsic = 21_000n + zeros * 4n + (BigInt(data.length) - zeros) * 16n;
    const estimate = BigInt(
      await call<string>('eth_estimateGas', [{ to: P256VERIFY_ADDRESS, data: P256VERIFY_VALID_INPUT }, 'latest']),
    );
    expect(estimate).toBeGreaterThanOrEqual(intrinsic + 3450n);
  });

  it('the Granite bn256Pairing input limit fails the same input in eth_call and in a block', async () => {
    const request = { from: ALICE, to: BN256_PAIRING, data: hex(PAIRING_INPUT), gas: q(PAIRING_GAS) };
    await expect(call('eth_call', [request, 'latest'])).rejects.toThrow(/out of gas/);

    // The same message as a transaction in block 1, built and imported through the Engine API.
    const genesis: any = await call('eth_getBlockByNumber', ['0x0', false]);
    const t = 2;
    const l1Info = l1InfoDepositTx(
      {
        number: 1000n,
        time: BigInt(t),
        baseFee: 7_000_000_000n,
        blockHash: keccak256(new TextEncoder().encode('l1 block 1')),
        sequenceNumber: 0n,
        batcherHash: batcherHashFromAddress(new Uint8Array(20).fill(0xba)),
        l1FeeOverhead: 0n,
        l1FeeScalar: 0n,
        blobBaseFee: 1n,
        baseFeeScalar: 1368n,
        blobBaseFeeScalar: 810_949n,
      },
      'ecotone',
      true,
    );
    const tx = signTx(alice, {
      type: 2,
      chainId: CHAIN_ID,
      nonce: 0n,
      to: BN256_PAIRING,
      gas: PAIRING_GAS,
      data: PAIRING_INPUT,
    });
    const beaconRoot = hex(keccak256(Uint8Array.of(0xbe, 1)));
    const state = { headBlockHash: genesis.hash, safeBlockHash: genesis.hash, finalizedBlockHash: genesis.hash };
    const attrs = {
      timestamp: q(t),
      prevRandao: hex(keccak256(Uint8Array.of(0x70, 1))),
      suggestedFeeRecipient: PREDEPLOY.sequencerFeeVault,
      transactions: [encodeDepositTx(l1Info), tx].map(hex),
      noTxPool: true,
      gasLimit: q(GAS_LIMIT),
      withdrawals: [],
      parentBeaconBlockRoot: beaconRoot,
    };
    const fcu = await call('engine_forkchoiceUpdatedV3', [state, attrs]);
    expect(fcu.payloadStatus.status).toBe('VALID');
    const payload = (await call('engine_getPayloadV3', [fcu.payloadId])).executionPayload;
    expect(payload.transactions).toEqual(attrs.transactions);
    const status = await call('engine_newPayloadV3', [payload, [], beaconRoot]);
    expect(status.status).toBe('VALID');
    const set = await call('engine_forkchoiceUpdatedV3', [{ ...state, headBlockHash: payload.blockHash }, null]);
    expect(set.payloadStatus.status).toBe('VALID');

    const receipt: any = await call('eth_getTransactionReceipt', [hex(keccak256(tx))]);
    expect(receipt.blockHash).toBe(payload.blockHash);
    expect(receipt.status).toBe('0x0');
    expect(BigInt(receipt.gasUsed)).toBe(PAIRING_GAS); // the failed precompile consumed all gas given
  });
});
