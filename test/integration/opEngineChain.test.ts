// biome-ignore-all lint/suspicious/noExplicitAny: the test reads JSON-RPC answers
// A local OP chain driven only through the Engine API (JSON-RPC with a JWT on the auth listener, as op-node drives
// op-geth): engine_forkchoiceUpdatedV1/V2/V3 with OP payload attributes (L1-info deposit, user deposits with mint,
// network-upgrade deposits, forced user transactions, noTxPool, gasLimit, eip1559Params), engine_getPayloadV2/V3/V4,
// engine_newPayloadV2/V3/V4, then a forkchoice update to the new block. Forks activate at chosen timestamps:
// Regolith (genesis) → Canyon → Ecotone (with its upgrade transactions and the contracts-bedrock 0.17.1 bytecode) →
// Fjord (its upgrade, 0.17.3) → Granite → Holocene → Isthmus (the activation block carries this test's own
// deposits — the devnet's Isthmus L1-info front for the L1Block proxy, and EIP-2935's own deployment; the spec's
// Isthmus upgrade transactions run in test/e2e/devnetUpgrades.test.ts). After every block, balances (sender, recipient, depositors, the message passer) and the four fee vaults
// are compared with numbers computed here from the spec formulas; base fees, Holocene extraData and Isthmus
// withdrawalsRoot/requestsHash are checked in the built headers.
import { createHash } from 'node:crypto';
import { createMPT } from '@ethereumjs/mpt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/main/common/rpc/client.js';
import { l1BlockFrontCode } from '../../src/main/devnet/contracts.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { bundledBytecode, upgradeDeposit, upgradeToCalldata } from '../../src/main/node/derive/upgrades/common.js';
import { ECOTONE_L1_BLOCK_ADDRESS, ecotoneUpgradeTxs } from '../../src/main/node/derive/upgrades/ecotone.js';
import { fjordUpgradeTxs } from '../../src/main/node/derive/upgrades/fjord.js';
import { EIP2935_CREATION_CODE, EIP2935_DEPLOYER } from '../../src/main/node/derive/upgrades/isthmus.js';
import { flzCompressLen } from '../../src/main/primitives/op/fastlz.js';
import {
  batcherHashFromAddress,
  type L1BlockInfo,
  type L1InfoFormat,
  l1InfoDepositTx,
} from '../../src/main/primitives/op/l1Info.js';
import { rlpEncode } from '../../src/main/primitives/rlp.js';
import { encodeDepositTx } from '../../src/main/primitives/tx/deposit/deposit.js';
import { userDepositSourceHash } from '../../src/main/primitives/tx/deposit/sourceHash.js';
import { addressOf, privKey, signTx } from '../unit/main/node/derive/l1Fake.js';
import {
  bytes,
  createAddress,
  deployCode,
  type ExecNode,
  hex,
  type OpForkTimes,
  opGenesisJson,
  PREDEPLOY,
  serveAuthRpc,
  silentLogger,
  startExec,
} from './opGenesis.js';

const CHAIN_ID = 901n;
const ETH = 10n ** 18n;
const GAS_LIMIT = 30_000_000n;
const FORKS: Required<OpForkTimes> = {
  canyon: 4,
  delta: 4,
  ecotone: 8,
  fjord: 12,
  granite: 14,
  holocene: 16,
  isthmus: 20,
};
const LAST = 11; // blocks 1..11 at t = 2n
const active = (fork: keyof OpForkTimes, t: number) => t >= FORKS[fork];
const activation = (fork: keyof OpForkTimes, t: number) => t === FORKS[fork];

const alice = privKey(0xa1);
const ALICE = addressOf(alice);
const BOB = `0x${'b0'.repeat(20)}`;
const DEPOSITOR = `0x${'d1'.repeat(20)}`;
const DEPOSIT_TO = `0x${'d2'.repeat(20)}`;
const BROKE = `0x${'d3'.repeat(20)}`; // sends a deposit whose value exceeds its mint: it fails, the mint stays
const BATCHER = `0x${'ba'.repeat(20)}`;
const FRONT_DEPLOYER = '0x4210000000000000000000000000000000000099';
const FRONT = createAddress(FRONT_DEPLOYER, 0n);
const HISTORY_STORAGE = '0x0000f90827f1c53a10cb7a02335b175320002935';
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_REQUESTS_HASH = hex(createHash('sha256').digest());

// L1 values the L1-info deposits carry.
const L1 = { baseFee: 7_000_000_000n, overhead: 188n, scalar: 684_000n, blobBaseFee: 3_000_000n };
const ECO = { baseFeeScalar: 1368n, blobBaseFeeScalar: 810_949n };
const OPFEE = { scalar: 5000n, constant: 12_345n };
const HOLOCENE_PARAMS = { denominator: 100n, elasticity: 4n }; // sent from block 9 on

// ---- the spec's fee formulas, written out here -------------------------------------------------------------

function zerosOnes(raw: Uint8Array): [bigint, bigint] {
  const z = BigInt(raw.filter((b) => b === 0).length);
  return [z, BigInt(raw.length) - z];
}
/** Bedrock/Regolith: (zeros·4 + ones·16 + overhead) · l1BaseFee · scalar / 1e6. */
function bedrockFee(raw: Uint8Array): bigint {
  const [z, o] = zerosOnes(raw);
  return ((z * 4n + o * 16n + L1.overhead) * L1.baseFee * L1.scalar) / 1_000_000n;
}
/** Ecotone: calldataGas · (16·l1BaseFee·baseFeeScalar + blobBaseFee·blobBaseFeeScalar) / 16e6. */
function ecotoneFee(raw: Uint8Array): bigint {
  const [z, o] = zerosOnes(raw);
  return (
    ((z * 4n + o * 16n) * (16n * L1.baseFee * ECO.baseFeeScalar + L1.blobBaseFee * ECO.blobBaseFeeScalar)) / 16_000_000n
  );
}
/** Fjord: max(100e6, -42.5856e6 + 836500·flzLen) · (16·l1BaseFee·baseFeeScalar + blobBaseFee·blobScalar) / 1e12. */
function fjordFee(raw: Uint8Array): bigint {
  const scaled = -42_585_600n + 836_500n * BigInt(flzCompressLen(raw));
  const size = scaled < 100_000_000n ? 100_000_000n : scaled;
  return (size * (16n * L1.baseFee * ECO.baseFeeScalar + L1.blobBaseFee * ECO.blobBaseFeeScalar)) / 1_000_000_000_000n;
}
/** The L1 fee of a user transaction in a block at `t` (the Ecotone activation block still uses Bedrock's). */
function l1Fee(raw: Uint8Array, t: number): bigint {
  if (active('fjord', t)) return fjordFee(raw);
  if (active('ecotone', t) && !activation('ecotone', t)) return ecotoneFee(raw);
  return bedrockFee(raw);
}
/** Isthmus operator fee: gasUsed · scalar / 1e6 + constant, from the block after activation (L1Block slot 8). */
function operatorFee(gasUsed: bigint, t: number): bigint {
  if (!active('isthmus', t) || activation('isthmus', t)) return 0n;
  return (gasUsed * OPFEE.scalar) / 1_000_000n + OPFEE.constant;
}
/** EIP-1559 with OP's parameters (denominator by the child's fork; Holocene: the parent's extraData). */
function nextBaseFee(parent: any, t: number): bigint {
  const base = BigInt(parent.baseFeePerGas);
  const used = BigInt(parent.gasUsed);
  let denominator = active('canyon', t) ? 250n : 50n;
  let elasticity = 6n;
  if (active('holocene', Number(parent.timestamp))) {
    const extra = bytes(parent.extraData);
    const view = new DataView(extra.buffer, extra.byteOffset);
    denominator = BigInt(view.getUint32(1));
    elasticity = BigInt(view.getUint32(5));
  }
  const target = BigInt(parent.gasLimit) / elasticity;
  if (used === target) return base;
  if (used > target) {
    const d = (base * (used - target)) / target / denominator;
    return base + (d > 1n ? d : 1n);
  }
  const d = (base * (target - used)) / target / denominator;
  return base - d > 0n ? base - d : 0n;
}

// ---- attributes ---------------------------------------------------------------------------------------------

const l1Hash = (n: number) => keccak256(new TextEncoder().encode(`l1 block ${n}`));

function l1InfoTx(n: number, t: number): Uint8Array {
  const info: L1BlockInfo = {
    number: BigInt(1000 + n),
    time: BigInt(t),
    baseFee: L1.baseFee,
    blockHash: l1Hash(n),
    sequenceNumber: 0n,
    batcherHash: batcherHashFromAddress(bytes(BATCHER)),
    l1FeeOverhead: L1.overhead,
    l1FeeScalar: L1.scalar,
    blobBaseFee: L1.blobBaseFee,
    baseFeeScalar: ECO.baseFeeScalar,
    blobBaseFeeScalar: ECO.blobBaseFeeScalar,
    operatorFeeScalar: OPFEE.scalar,
    operatorFeeConstant: OPFEE.constant,
  };
  // An activation block keeps the previous fork's encoding.
  let format: L1InfoFormat = 'bedrock';
  if (active('ecotone', t) && !activation('ecotone', t)) format = 'ecotone';
  if (active('isthmus', t) && !activation('isthmus', t)) format = 'isthmus';
  return encodeDepositTx(l1InfoDepositTx(info, format, true));
}

function userDeposit(n: number, logIndex: number, from: string, mint: bigint, value: bigint): Uint8Array {
  return encodeDepositTx({
    sourceHash: userDepositSourceHash(l1Hash(n), BigInt(logIndex)),
    from: bytes(from),
    to: bytes(DEPOSIT_TO),
    mint,
    value,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(0),
  });
}

/** A stand-in for the Isthmus activation's contract changes: the L1-info front and EIP-2935's deployment. */
function isthmusUpgrade(): Uint8Array[] {
  return [
    encodeDepositTx({
      sourceHash: keccak256(new TextEncoder().encode('test: Isthmus L1Block front deployment')),
      from: bytes(FRONT_DEPLOYER),
      to: undefined,
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      data: deployCode(l1BlockFrontCode(BigInt(`0x${ECOTONE_L1_BLOCK_ADDRESS}`))),
    }),
    encodeDepositTx(
      upgradeDeposit({
        intent: 'test: Isthmus L1Block proxy update',
        from: '0000000000000000000000000000000000000000',
        to: PREDEPLOY.l1Block.slice(2),
        gasLimit: 50_000,
        data: upgradeToCalldata(FRONT.slice(2)),
      }),
    ),
    encodeDepositTx(
      upgradeDeposit({
        intent: 'Isthmus: EIP-2935 Contract Deployment',
        from: EIP2935_DEPLOYER,
        gasLimit: 250_000,
        data: bytes(EIP2935_CREATION_CODE),
      }),
    ),
  ];
}

/** initiateWithdrawal(address,uint256,bytes) to BOB with gas limit 100000 and empty data. */
const WITHDRAW_GAS_LIMIT = 100_000n;
const WITHDRAW_VALUE = 3n * 10n ** 15n;
function withdrawalCalldata(): Uint8Array {
  const sel = keccak256(new TextEncoder().encode('initiateWithdrawal(address,uint256,bytes)')).subarray(0, 4);
  const w = (v: bigint) => bytes(v.toString(16).padStart(64, '0'));
  return Uint8Array.from([...sel, ...w(BigInt(BOB)), ...w(WITHDRAW_GAS_LIMIT), ...w(0x60n), ...w(0n)]);
}

interface Plan {
  deposits: Uint8Array[];
  upgrades: Uint8Array[];
  users: Uint8Array[];
  /** Expected deposit effects: [address, delta]. */
  depositEffects: Array<[string, bigint]>;
  failedDeposit?: boolean;
}

let aliceNonce = 0n;
function plan(n: number, t: number): Plan {
  const p: Plan = { deposits: [], upgrades: [], users: [], depositEffects: [] };
  if (n % 2 === 1 || n === 4) {
    p.deposits.push(userDeposit(n, 0, DEPOSITOR, ETH, ETH / 4n));
    p.depositEffects.push([DEPOSITOR, ETH - ETH / 4n], [DEPOSIT_TO, ETH / 4n]);
  }
  if (n === 6) {
    p.deposits.push(userDeposit(n, 1, BROKE, 1000n, 5000n));
    p.depositEffects.push([BROKE, 1000n]);
    p.failedDeposit = true;
  }
  if (activation('ecotone', t)) p.upgrades.push(...ecotoneUpgradeTxs(bundledBytecode()).map(encodeDepositTx));
  if (activation('fjord', t)) p.upgrades.push(...fjordUpgradeTxs(bundledBytecode()).map(encodeDepositTx));
  if (activation('isthmus', t)) p.upgrades.push(...isthmusUpgrade());
  const send = (value: bigint, data?: Uint8Array, to = BOB, gas = 21_000n) =>
    signTx(alice, { type: 2, chainId: CHAIN_ID, nonce: aliceNonce++, to, value, gas, ...(data ? { data } : {}) });
  p.users.push(send(BigInt(n) * 1_000_000n));
  if (n === 7) p.users.push(send(7n, new Uint8Array(300).fill(0x33), BOB, 40_000n)); // a larger L1 fee under Fjord
  if (activation('isthmus', t))
    p.users.push(send(WITHDRAW_VALUE, withdrawalCalldata(), PREDEPLOY.messagePasser, 200_000n));
  return p;
}

function eip1559ParamsFor(n: number, t: number): string | undefined {
  if (!active('holocene', t)) return undefined;
  if (activation('holocene', t)) return `0x${'00'.repeat(8)}`; // 0/0: the chain's defaults
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, Number(HOLOCENE_PARAMS.denominator));
  v.setUint32(4, Number(HOLOCENE_PARAMS.elasticity));
  return n >= 9 ? hex(b) : `0x${'00'.repeat(8)}`;
}

const q = (n: bigint | number) => `0x${n.toString(16)}`;

describe.each(['inline', 'worker'] as const)(
  'a local OP chain driven through the Engine API across the fork schedule (%s executor)',
  (executor) => {
    let exec: ExecNode;
    let rpc: RpcClient;
    let stop: () => Promise<void>;
    const secret = new Uint8Array(32).fill(0x5a);

    beforeAll(async () => {
      aliceNonce = 0n; // each twin starts its own chain from genesis
      exec = await startExec(
        opGenesisJson({
          chainId: CHAIN_ID,
          timestamp: 0,
          gasLimit: GAS_LIMIT,
          forks: FORKS,
          funded: { [ALICE]: 100n * ETH },
        }),
        silentLogger(),
        { executor },
      );
      const srv = await serveAuthRpc(exec, secret);
      stop = srv.stop;
      rpc = new RpcClient({ url: srv.url, jwtSecret: secret, timeoutMs: 30_000 }, { logger: silentLogger() });
    });
    afterAll(async () => {
      await rpc?.close();
      await stop?.();
      await exec?.close();
    });

    const call = <T = any>(method: string, params: unknown[]) => rpc.call<T>(method, params);
    const balance = async (a: string, n: number) => BigInt(await call<string>('eth_getBalance', [a, q(n)]));
    const ethCall = async (to: string, sig: string, n: number) =>
      BigInt(
        await call<string>('eth_call', [
          { to, data: hex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4)) },
          q(n),
        ]),
      );

    it('builds every block through FCU/getPayload/newPayload/FCU and matches hand-computed balances and fees', async () => {
      const watched = [
        ALICE,
        BOB,
        DEPOSITOR,
        DEPOSIT_TO,
        BROKE,
        PREDEPLOY.messagePasser,
        PREDEPLOY.sequencerFeeVault,
        PREDEPLOY.baseFeeVault,
        PREDEPLOY.l1FeeVault,
        PREDEPLOY.operatorFeeVault,
      ];
      const expected = new Map<string, bigint>();
      for (const a of watched) expected.set(a, await balance(a, 0));
      expect(expected.get(ALICE)).toBe(100n * ETH);
      const add = (a: string, d: bigint) => expected.set(a, (expected.get(a) as bigint) + d);

      let parent: any = await call('eth_getBlockByNumber', ['0x0', false]);
      const genesisHash = parent.hash as string;
      for (let n = 1; n <= LAST; n++) {
        const t = 2 * n;
        const p = plan(n, t);
        const attrs: Record<string, unknown> = {
          timestamp: q(t),
          prevRandao: hex(keccak256(Uint8Array.of(0x70, n))),
          suggestedFeeRecipient: PREDEPLOY.sequencerFeeVault,
          transactions: [l1InfoTx(n, t), ...p.deposits, ...p.upgrades, ...p.users].map(hex),
          noTxPool: true,
          gasLimit: q(GAS_LIMIT),
        };
        if (active('canyon', t)) attrs.withdrawals = [];
        const beaconRoot = hex(keccak256(Uint8Array.of(0xbe, n)));
        if (active('ecotone', t)) attrs.parentBeaconBlockRoot = beaconRoot;
        const params = eip1559ParamsFor(n, t);
        if (params !== undefined) attrs.eip1559Params = params;

        const fcuVersion = active('ecotone', t) ? 3 : active('canyon', t) ? 2 : 1;
        const payloadVersion = active('isthmus', t) ? 4 : active('ecotone', t) ? 3 : 2;
        const state = { headBlockHash: parent.hash, safeBlockHash: parent.hash, finalizedBlockHash: genesisHash };
        const fcu = await call(`engine_forkchoiceUpdatedV${fcuVersion}`, [state, attrs]);
        expect(fcu.payloadStatus.status, `block ${n} FCU`).toBe('VALID');
        expect(fcu.payloadId, `block ${n} payload id`).toMatch(/^0x[0-9a-f]{16}$/);
        const env = await call(`engine_getPayloadV${payloadVersion}`, [fcu.payloadId]);
        const payload = env.executionPayload;
        expect(payload.transactions).toEqual(attrs.transactions); // noTxPool: exactly the forced list
        expect(BigInt(payload.gasLimit)).toBe(GAS_LIMIT);
        if (payloadVersion >= 3) expect(env.parentBeaconBlockRoot).toBe(beaconRoot);
        const npParams: unknown[] = [payload];
        if (payloadVersion >= 3) npParams.push([], beaconRoot);
        if (payloadVersion === 4) npParams.push([]);
        const status = await call(`engine_newPayloadV${payloadVersion}`, npParams);
        expect(status, `block ${n} newPayload`).toMatchObject({ status: 'VALID', latestValidHash: payload.blockHash });
        const set = await call('engine_forkchoiceUpdatedV3', [{ ...state, headBlockHash: payload.blockHash }, null]);
        expect(set.payloadStatus.status).toBe('VALID');

        const block: any = await call('eth_getBlockByNumber', [q(n), true]);
        expect(block.hash).toBe(payload.blockHash);
        expect((await call('eth_getBlockByNumber', ['safe', false])).hash).toBe(parent.hash);

        // Header rules by fork.
        expect(BigInt(block.baseFeePerGas), `block ${n} base fee`).toBe(nextBaseFee(parent, t));
        expect(block.withdrawals !== undefined).toBe(active('canyon', t));
        if (active('canyon', t) && !active('isthmus', t)) expect(block.withdrawalsRoot).toBe(EMPTY_TRIE_ROOT);
        expect(block.parentBeaconBlockRoot).toBe(active('ecotone', t) ? beaconRoot : undefined);
        if (active('holocene', t)) {
          const want = n >= 9 ? HOLOCENE_PARAMS : { denominator: 250n, elasticity: 6n };
          const extra = new Uint8Array(9);
          new DataView(extra.buffer).setUint32(1, Number(want.denominator));
          new DataView(extra.buffer).setUint32(5, Number(want.elasticity));
          expect(block.extraData, `block ${n} Holocene extraData`).toBe(hex(extra));
        } else {
          expect(block.extraData).toBe('0x');
        }
        expect(block.requestsHash).toBe(active('isthmus', t) ? EMPTY_REQUESTS_HASH : undefined);

        // Balances: deposits (mint credited even when the deposit fails), then each user transaction's fees.
        for (const [a, d] of p.depositEffects) add(a, d);
        const baseFee = BigInt(block.baseFeePerGas);
        for (const raw of p.users) {
          const txHash = hex(keccak256(raw));
          const r: any = await call('eth_getTransactionReceipt', [txHash]);
          expect(r.status, `block ${n} tx ${txHash}`).toBe('0x1');
          const gasUsed = BigInt(r.gasUsed);
          const tx: any = await call('eth_getTransactionByHash', [txHash]);
          const tip =
            BigInt(tx.maxPriorityFeePerGas) < BigInt(tx.maxFeePerGas) - baseFee
              ? BigInt(tx.maxPriorityFeePerGas)
              : BigInt(tx.maxFeePerGas) - baseFee;
          const fee = l1Fee(raw, t);
          const opFee = operatorFee(gasUsed, t);
          expect(BigInt(r.l1Fee), `block ${n} receipt l1Fee`).toBe(fee);
          if (tx.to === BOB && tx.input === '0x') expect(gasUsed).toBe(21_000n);
          add(ALICE, -(BigInt(tx.value) + gasUsed * (baseFee + tip) + fee + opFee));
          add(tx.to, BigInt(tx.value));
          add(PREDEPLOY.baseFeeVault, gasUsed * baseFee);
          add(PREDEPLOY.sequencerFeeVault, gasUsed * tip);
          add(PREDEPLOY.l1FeeVault, fee);
          add(PREDEPLOY.operatorFeeVault, opFee);
          if (opFee > 0n) expect(BigInt(r.operatorFeeScalar)).toBe(OPFEE.scalar);
        }
        if (p.failedDeposit) {
          const failed = p.deposits[p.deposits.length - 1] as Uint8Array;
          const r: any = await call('eth_getTransactionReceipt', [hex(keccak256(failed))]);
          expect(r.status).toBe('0x0');
        }
        for (const a of watched)
          expect(await balance(a, n), `block ${n} (t=${t}) balance of ${a}`).toBe(expected.get(a));
        parent = block;
      }
      // Fees were actually charged into every vault.
      for (const v of [
        PREDEPLOY.baseFeeVault,
        PREDEPLOY.sequencerFeeVault,
        PREDEPLOY.l1FeeVault,
        PREDEPLOY.operatorFeeVault,
      ])
        expect(expected.get(v)).toBeGreaterThan(0n);
    });

    it('ran the upgrade transactions: the predeploys report the forks and the L1 values', async () => {
      const gpo = PREDEPLOY.gasPriceOracle;
      expect(await ethCall(gpo, 'isEcotone()', 3)).toBe(0n);
      expect(await ethCall(gpo, 'isEcotone()', 4)).toBe(1n);
      // The Ecotone GasPriceOracle (0.17.1) has no isFjord(); the Fjord upgrade's (0.17.3) has.
      await expect(ethCall(gpo, 'isFjord()', 5)).rejects.toThrow(/revert/);
      expect(await ethCall(gpo, 'isFjord()', 6)).toBe(1n);
      expect(await ethCall(PREDEPLOY.l1Block, 'baseFeeScalar()', 5)).toBe(ECO.baseFeeScalar);
      expect(await ethCall(PREDEPLOY.l1Block, 'blobBaseFee()', 5)).toBe(L1.blobBaseFee);
      expect(await ethCall(PREDEPLOY.l1Block, 'number()', LAST)).toBe(BigInt(1000 + LAST));
      // EIP-4788 (deployed by the Ecotone upgrade): block 5 stored its parent beacon block root at t % 8191 + 8191.
      const root = await call<string>('eth_getStorageAt', [BEACON_ROOTS, q(10 + 8191), q(5)]);
      expect(root).toBe(hex(keccak256(Uint8Array.of(0xbe, 5))));
      // EIP-2935 (deployed in the Isthmus activation block): block 11 stored block 10's hash at slot 10.
      const b10: any = await call('eth_getBlockByNumber', [q(10), false]);
      expect(await call<string>('eth_getStorageAt', [HISTORY_STORAGE, q(10), q(11)])).toBe(b10.hash);
    });

    it('Isthmus headers carry the message passer storage root, computed here from the withdrawal', async () => {
      const b10: any = await call('eth_getBlockByNumber', [q(10), true]);
      const proof: any = await call('eth_getProof', [PREDEPLOY.messagePasser, [], q(10)]);
      expect(b10.withdrawalsRoot).toBe(proof.storageHash);
      // sentMessages[hashWithdrawal(nonce v1|0, alice, bob, value, gasLimit, "")] = true at slot 0; msgNonce = 1 at slot 1.
      const w = (v: bigint) => bytes(v.toString(16).padStart(64, '0'));
      const nonce = 1n << 240n;
      const withdrawalHash = keccak256(
        Uint8Array.from([
          ...w(nonce),
          ...w(BigInt(ALICE)),
          ...w(BigInt(BOB)),
          ...w(WITHDRAW_VALUE),
          ...w(WITHDRAW_GAS_LIMIT),
          ...w(0xc0n),
          ...w(0n),
        ]),
      );
      const trie = await createMPT({ useKeyHashing: true });
      await trie.put(keccak256(Uint8Array.from([...withdrawalHash, ...w(0n)])), rlpEncode(1n));
      await trie.put(w(1n), rlpEncode(1n));
      expect(b10.withdrawalsRoot).toBe(hex(trie.root()));
      const b11: any = await call('eth_getBlockByNumber', [q(11), false]);
      expect(b11.withdrawalsRoot).toBe(b10.withdrawalsRoot); // no withdrawal in block 11
      expect(await balance(PREDEPLOY.messagePasser, 10)).toBe(WITHDRAW_VALUE);
    });

    it('refuses attributes the fork does not allow', async () => {
      const head: any = await call('eth_getBlockByNumber', ['latest', false]);
      const state = { headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash };
      const base = {
        timestamp: q(2 * (LAST + 1)),
        prevRandao: hex(new Uint8Array(32)),
        suggestedFeeRecipient: PREDEPLOY.sequencerFeeVault,
        withdrawals: [],
        parentBeaconBlockRoot: hex(new Uint8Array(32)),
        transactions: [hex(l1InfoTx(LAST + 1, 2 * (LAST + 1)))],
        noTxPool: true,
        gasLimit: q(GAS_LIMIT),
      };
      // Holocene requires eip1559Params; an OP chain requires gasLimit.
      await expect(call('engine_forkchoiceUpdatedV3', [state, base])).rejects.toMatchObject({ code: -38003 });
      const { gasLimit: _g, ...noGas } = base;
      await expect(
        call('engine_forkchoiceUpdatedV3', [state, { ...noGas, eip1559Params: `0x${'00'.repeat(8)}` }]),
      ).rejects.toMatchObject({ code: -38003 });
    });
  },
);
