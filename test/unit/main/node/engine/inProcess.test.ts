// The in-process Engine and the HTTP Engine over the same suite: each drives its own tern-exec (same OP genesis)
// through Regolith → Canyon (FCU V2) → Ecotone/Holocene (V3) → Isthmus (V4), then reads blocks, payloads, system
// configs and output roots back, and hits the Engine API's error cases. The HTTP engine talks JSON-RPC with a JWT
// to the exec's auth listener (engine + eth namespaces); the in-process one calls the handlers. Every answer of both
// is recorded and compared at the end: the driver must not be able to tell them apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { HttpEngine } from '../../../../../src/main/node/engine/http.js';
import { InProcessEngine } from '../../../../../src/main/node/engine/inProcess.js';
import type { Engine } from '../../../../../src/main/node/engine/interface.js';
import { outputRootV0 } from '../../../../../src/main/node/engine/output.js';
import { batcherHashFromAddress, l1InfoDepositTx } from '../../../../../src/main/primitives/op/l1Info.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import type { PayloadAttributes } from '../../../../../src/main/protocol/engine/types.js';
import {
  bytes,
  type ExecNode,
  hex,
  opGenesisJson,
  PREDEPLOY,
  rollupConfig,
  serveAuthRpc,
  silentLogger,
  startExec,
} from '../../../../integration/opGenesis.js';
import { addressOf, privKey, signTx } from '../derive/l1Fake.js';

const CHAIN_ID = 901n;
const G = 1_000; // genesis time (op-node refuses genesis.l2_time 0)
const FORKS = {
  canyon: G + 4,
  delta: G + 4,
  ecotone: G + 6,
  fjord: G + 6,
  granite: G + 6,
  holocene: G + 6,
  isthmus: G + 8,
};
const GAS_LIMIT = 30_000_000n;
const BATCHER = `0x${'ba'.repeat(20)}`;
const L1_GENESIS = { hash: hex(keccak256(Uint8Array.of(1))), number: 50 };
const user = privKey(0x55);
const USER = addressOf(user);
const secret = new Uint8Array(32).fill(3);
const ZERO32 = new Uint8Array(32);

const l1Hash = (n: number) => keccak256(Uint8Array.of(0x11, n));

function l1Info(t: number, l1Number: number, seq: number): Uint8Array {
  const ecotone = t >= FORKS.ecotone;
  return encodeDepositTx(
    l1InfoDepositTx(
      {
        number: BigInt(l1Number),
        time: BigInt(t),
        baseFee: 9n,
        blockHash: l1Number === L1_GENESIS.number ? bytes(L1_GENESIS.hash) : l1Hash(l1Number),
        sequenceNumber: BigInt(seq),
        batcherHash: batcherHashFromAddress(bytes(BATCHER)),
        l1FeeOverhead: 188n,
        l1FeeScalar: 684_000n,
        blobBaseFee: 1n,
        baseFeeScalar: 7n,
        blobBaseFeeScalar: 8n,
      },
      // The 0.17 L1Block has no Isthmus setter; the Ecotone encoding is valid in Isthmus blocks for execution.
      ecotone ? 'ecotone' : 'bedrock',
      true,
    ),
  );
}

/** initiateWithdrawal(user, 50000, "") with 1000 wei: the message passer's storage changes. */
function withdrawal(nonce: number): Uint8Array {
  const sel = keccak256(new TextEncoder().encode('initiateWithdrawal(address,uint256,bytes)')).subarray(0, 4);
  const w = (v: bigint) => bytes(v.toString(16).padStart(64, '0'));
  const data = Uint8Array.from([...sel, ...w(BigInt(USER)), ...w(50_000n), ...w(0x60n), ...w(0n)]);
  return signTx(user, {
    type: 2,
    chainId: CHAIN_ID,
    nonce: BigInt(nonce),
    to: PREDEPLOY.messagePasser,
    value: 1000n,
    gas: 200_000n,
    data,
  });
}

function attributes(n: number): PayloadAttributes {
  const t = G + 2 * n;
  const l1Number = L1_GENESIS.number + Math.floor(n / 2);
  const a: PayloadAttributes = {
    timestamp: BigInt(t),
    prevRandao: keccak256(Uint8Array.of(0x70, n)),
    suggestedFeeRecipient: bytes(PREDEPLOY.sequencerFeeVault),
    transactions: [l1Info(t, l1Number, n % 2), withdrawal(n - 1)],
    noTxPool: true,
    gasLimit: GAS_LIMIT,
  };
  if (t >= FORKS.canyon) a.withdrawals = [];
  if (t >= FORKS.ecotone) a.parentBeaconBlockRoot = keccak256(Uint8Array.of(0xbe, n));
  if (t >= FORKS.holocene) a.eip1559Params = new Uint8Array(8);
  return a;
}

type Make = (exec: ExecNode, cfg: RollupConfig) => Promise<{ engine: Engine; close: () => Promise<void> }>;

const IMPLEMENTATIONS: Record<string, Make> = {
  http: async (exec, cfg) => {
    const srv = await serveAuthRpc(exec, secret);
    const engine = new HttpEngine(
      cfg,
      { url: srv.url, jwtSecret: secret, timeoutMs: 10_000, kind: 'geth', fetchWithdrawalRootFromState: false },
      { logger: silentLogger() },
    );
    return {
      engine,
      close: async () => {
        await engine.close();
        await srv.stop();
      },
    };
  },
  inProcess: async (exec, cfg) => {
    const engine = new InProcessEngine(cfg, exec, {}, { logger: silentLogger() });
    return { engine, close: () => engine.close() };
  },
};

/** Everything each implementation answered, by step name (bigints and bytes as strings). */
const answers: Record<string, Record<string, string>> = {};
/** Bytes of any kind (Buffer or Uint8Array) as hex, bigints tagged, undefined as null. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return hex(v);
  if (typeof v === 'bigint') return `n${v}`;
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof TernError) return [v.code, v.severity];
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
const show = (v: unknown) => JSON.stringify(plain(v));

async function errorOf(p: Promise<unknown>): Promise<TernError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TernError);
    return err as TernError;
  }
  throw new Error('expected an error');
}

for (const [kind, make] of Object.entries(IMPLEMENTATIONS)) {
  describe(`${kind} engine`, () => {
    let exec: ExecNode;
    let cfg: RollupConfig;
    let engine: Engine;
    let close: () => Promise<void>;
    const hashes: Uint8Array[] = [];
    const rec = (step: string, v: unknown) => {
      answers[kind] ??= {};
      (answers[kind] as Record<string, string>)[step] = show(v);
    };

    beforeAll(async () => {
      exec = await startExec(
        opGenesisJson({
          chainId: CHAIN_ID,
          timestamp: G,
          gasLimit: GAS_LIMIT,
          forks: FORKS,
          funded: { [USER]: 10n ** 20n },
        }),
      );
      cfg = rollupConfig({
        l2Genesis: { hash: hex(exec.genesisHash), time: G },
        l1Genesis: L1_GENESIS,
        chainId: CHAIN_ID,
        forks: FORKS,
        batcher: BATCHER,
        gasLimit: GAS_LIMIT,
      });
      ({ engine, close } = await make(exec, cfg));
      hashes.push(exec.genesisHash);
    });
    afterAll(async () => {
      await close?.();
      await exec?.close();
    });

    it('reports unmarked safe and finalized blocks as not found, and the genesis as latest', async () => {
      const latest = await engine.l2BlockRefByLabel('latest');
      expect(latest).toMatchObject({ number: 0, hash: hex(exec.genesisHash), l1origin: L1_GENESIS });
      for (const label of ['safe', 'finalized'] as const) {
        const e = await errorOf(engine.l2BlockRefByLabel(label));
        expect(e.code).toBe('ENGINE_NOT_FOUND');
        rec(`unmarked ${label}`, e.code);
      }
    });

    it('builds five blocks across Canyon, Ecotone/Holocene and Isthmus with the fork-versioned calls', async () => {
      for (let n = 1; n <= 5; n++) {
        const parent = hashes[n - 1] as Uint8Array;
        const a = attributes(n);
        const fcu = await engine.forkchoiceUpdated(
          { headBlockHash: parent, safeBlockHash: parent, finalizedBlockHash: exec.genesisHash },
          a,
        );
        expect(fcu.payloadStatus.status).toBe('VALID');
        expect(fcu.payloadId?.[0]).toBe(n === 1 ? 1 : n === 2 ? 2 : 3); // FCU version in the payload id
        const env = await engine.getPayload(fcu.payloadId as Uint8Array, Number(a.timestamp));
        const p = env.executionPayload;
        expect(p.withdrawalsRoot !== undefined).toBe(n >= 4);
        const status = await engine.newPayload(p, env.parentBeaconBlockRoot);
        expect(status).toEqual({ status: 'VALID', latestValidHash: p.blockHash, validationError: null });
        const set = await engine.forkchoiceUpdated({
          headBlockHash: p.blockHash,
          safeBlockHash: parent,
          finalizedBlockHash: exec.genesisHash,
        });
        expect(set.payloadStatus.status).toBe('VALID');
        hashes.push(p.blockHash);
        rec(`envelope ${n}`, env);
      }
      expect(exec.store.head().number).toBe(5n);
    });

    it('reads references, blocks, payloads and system configs back', async () => {
      const latest = await engine.l2BlockRefByLabel('latest');
      const safe = await engine.l2BlockRefByLabel('safe');
      const finalized = await engine.l2BlockRefByLabel('finalized');
      expect(latest).toMatchObject({ number: 5, hash: hex(hashes[5] as Uint8Array), sequenceNumber: 1 });
      expect(latest.l1origin).toEqual({ number: L1_GENESIS.number + 2, hash: hex(l1Hash(L1_GENESIS.number + 2)) });
      expect(safe.number).toBe(4);
      expect(finalized.number).toBe(0);
      rec('labels', { latest, safe, finalized });
      for (let n = 0; n <= 5; n++) {
        const ref = await engine.l2BlockRefByNumber(n);
        expect(ref.hash).toBe(hex(hashes[n] as Uint8Array));
        expect(await engine.l2BlockRefByHash(ref.hash)).toEqual(ref);
        const block = await engine.l2BlockByNumber(n);
        expect(block.ref).toEqual(ref);
        const byNumber = await engine.payloadByNumber(n);
        const byHash = await engine.payloadByHash(ref.hash);
        expect(byHash).toEqual(byNumber);
        if (n > 0) expect(block.transactions).toEqual(attributes(n).transactions);
        const sc = await engine.systemConfigByL2Hash(ref.hash);
        if (n > 0) expect(sc.batcherAddr).toBe(BATCHER);
        rec(`block ${n}`, { ref, block, payload: byNumber, sc });
      }
      // A payload read back is the one built, and re-importing it is a no-op VALID.
      const p5 = await engine.payloadByNumber(5);
      expect(p5.payload.withdrawalsRoot).toBeDefined();
      expect(await engine.newPayload(p5.payload, p5.parentBeaconBlockRoot)).toMatchObject({ status: 'VALID' });
    });

    it('serves output-root data: the message passer root from state before Isthmus, from the header after', async () => {
      const before = await engine.outputV0AtBlock(3);
      const after = await engine.outputV0AtBlock(5);
      const latest = await engine.outputV0AtBlock('latest');
      expect(latest).toEqual(after);
      // Both blocks hold withdrawals: the roots are not the empty trie's, and block 5's is its header's.
      const empty = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
      expect(hex(before.messagePasserStorageRoot)).not.toBe(empty);
      const header5 = exec.store.headerByNumber(5n);
      expect(after.messagePasserStorageRoot).toEqual(header5?.withdrawalsRoot);
      // The state of block 5 agrees with its header.
      const fromState = new InProcessEngine(
        cfg,
        exec,
        { fetchWithdrawalRootFromState: true },
        { logger: silentLogger() },
      );
      expect((await fromState.outputV0AtBlock(5)).messagePasserStorageRoot).toEqual(after.messagePasserStorageRoot);
      expect((await fromState.outputV0AtBlock(4)).messagePasserStorageRoot).not.toEqual(
        before.messagePasserStorageRoot,
      );
      rec('outputs', {
        before,
        after,
        roots: [before, after].map((o) => outputRootV0(o.stateRoot, o.messagePasserStorageRoot, o.blockHash)),
      });
    });

    it('maps the Engine API errors to the same codes and severities', async () => {
      const unknownId = await errorOf(engine.getPayload(Uint8Array.of(3, 1, 2, 3, 4, 5, 6, 7), G + 12));
      expect([unknownId.code, unknownId.severity]).toEqual(['ENGINE_UNKNOWN_PAYLOAD', 'temporary']);
      const head = hashes[5] as Uint8Array;
      const badAttrs = { ...attributes(6), eip1559Params: undefined };
      const attrs = await errorOf(
        engine.forkchoiceUpdated({ headBlockHash: head, safeBlockHash: head, finalizedBlockHash: ZERO32 }, badAttrs),
      );
      expect([attrs.code, attrs.severity]).toEqual(['ENGINE_INVALID_ATTRIBUTES', 'reset']);
      const badSafe = await errorOf(
        engine.forkchoiceUpdated({
          headBlockHash: hashes[2] as Uint8Array,
          safeBlockHash: head,
          finalizedBlockHash: ZERO32,
        }),
      );
      expect([badSafe.code, badSafe.severity]).toEqual(['ENGINE_INVALID_FORKCHOICE', 'reset']);
      // The failed update still moved the head back to block 2 (geth applies the head first): restore it.
      await engine.forkchoiceUpdated({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 });
      const p5 = (await engine.payloadByNumber(5)).payload;
      const orphan = { ...p5, parentHash: keccak256(Uint8Array.of(9)), blockHash: keccak256(Uint8Array.of(8)) };
      const syncing = await engine.newPayload(orphan, ZERO32);
      expect(syncing.status === 'SYNCING' || syncing.status === 'INVALID').toBe(true);
      const wrongHash = await engine.newPayload({ ...p5, blockHash: keccak256(Uint8Array.of(7)) }, ZERO32);
      expect(wrongHash.status).toBe('INVALID');
      const missing = await errorOf(engine.l2BlockRefByNumber(99));
      expect([missing.code, missing.severity]).toEqual(['ENGINE_NOT_FOUND', 'temporary']);
      const unknownHash = await errorOf(engine.payloadByHash(hex(keccak256(Uint8Array.of(6)))));
      expect(unknownHash.code).toBe('ENGINE_NOT_FOUND');
      rec(
        'errors',
        [unknownId, attrs, badSafe, missing, unknownHash].map((e) => [e.code, e.severity]),
      );
      rec('statuses', [syncing.status, wrongHash.status]);
    });
  });
}

describe('in-process and HTTP engines', () => {
  it('answered every step alike', () => {
    const http = answers.http ?? {};
    const inProcess = answers.inProcess ?? {};
    expect(Object.keys(inProcess).length).toBeGreaterThan(10);
    expect(Object.keys(inProcess).sort()).toEqual(Object.keys(http).sort());
    for (const step of Object.keys(http))
      expect(JSON.parse(inProcess[step] as string), step).toEqual(JSON.parse(http[step] as string));
  });
});
