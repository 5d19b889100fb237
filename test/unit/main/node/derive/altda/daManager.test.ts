import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../../src/main/common/logger/index.js';
import { AltDaInputs } from '../../../../../../src/main/node/derive/altda/altDaInputs.js';
import { type AltDaL1, DaManager } from '../../../../../../src/main/node/derive/altda/daManager.js';
import type { L1BlockRef } from '../../../../../../src/main/node/derive/types.js';
import type { L1Transaction } from '../../../../../../src/main/node/l1/interface.js';
import type { Receipt } from '../../../../../../src/main/primitives/receipt/receipt.js';
import {
  CHALLENGE_STATUS_CHANGED_TOPIC,
  ChallengeStatus,
  challengeStatusTopics,
  decodeChallengeStatusChanged,
  decodeResolveData,
  encodeCall,
  encodeChallengeStatusData,
  RESOLVE_SELECTOR,
} from '../../../../../../src/main/protocol/altda/challengeContract.js';
import {
  ALTDA_MISMATCH,
  ALTDA_NOT_FOUND,
  ALTDA_UNAVAILABLE,
} from '../../../../../../src/main/protocol/altda/client.js';
import {
  type Commitment,
  commitmentHex,
  commitmentTxData,
  encodeCommitment,
  genericCommitment,
  KECCAK_COMMITMENT,
  keccakCommitment,
  MAX_INPUT_SIZE,
} from '../../../../../../src/main/protocol/altda/commitment.js';

const log = createLogger({ level: 'silent', format: 'json' }).logger;
const CONTRACT = `0x${'da'.repeat(20)}`;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const ref = (n: number): L1BlockRef => ({ number: n, hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: n * 12 });

/** An L1 chain of `head` blocks whose receipts carry the challenge events put in `events`. */
class FakeL1 implements AltDaL1 {
  head = 100;
  readonly blocks = new Map<number, { receipts: Receipt[]; txs: L1Transaction[] }>();

  emit(block: number, comm: Commitment, inclusion: number, status: number, calldata: Uint8Array = new Uint8Array()) {
    const b = this.blocks.get(block) ?? { receipts: [], txs: [] };
    b.receipts.push({
      type: 2,
      status: 1,
      cumulativeGasUsed: 0n,
      logsBloom: new Uint8Array(256),
      logs: [
        {
          address: Buffer.from(CONTRACT.slice(2), 'hex'),
          topics: challengeStatusTopics(inclusion),
          data: encodeChallengeStatusData(encodeCommitment(comm), status),
        },
      ],
    });
    b.txs.push({ data: calldata } as unknown as L1Transaction);
    this.blocks.set(block, b);
  }

  async blockRefByNumber(n: number): Promise<L1BlockRef> {
    if (n > this.head) throw new TernError('NOT_FOUND', `block ${n} not found`);
    return ref(n);
  }
  async fetchReceipts(hash: string) {
    return { receipts: this.blocks.get(Number(BigInt(hash)))?.receipts ?? [] };
  }
  async infoAndTxsByHash(hash: string) {
    return { txs: this.blocks.get(Number(BigInt(hash)))?.txs ?? [] };
  }
}

class FakeDa {
  readonly data = new Map<string, Uint8Array>();
  down = false;
  reads = 0;
  async getInput(c: Commitment): Promise<Uint8Array> {
    this.reads++;
    if (this.down) throw new TernError(ALTDA_UNAVAILABLE, 'connection refused');
    const d = this.data.get(commitmentHex(c));
    if (d === undefined) throw new TernError(ALTDA_NOT_FOUND, 'not found');
    return d;
  }
}

const params = { commitmentType: KECCAK_COMMITMENT, challengeContract: CONTRACT, challengeWindow: 6, resolveWindow: 4 };

function setup() {
  const l1 = new FakeL1();
  const da = new FakeDa();
  const manager = new DaManager(params, l1, da, log);
  manager.reset(ref(9));
  return { l1, da, manager, inputs: new AltDaInputs(manager, KECCAK_COMMITMENT, log) };
}

const frames = Uint8Array.from([0, 1, 2, 3]);
const resolveCalldata = (inclusion: number, c: Commitment, input: Uint8Array) =>
  encodeCall(RESOLVE_SELECTOR, [inclusion, encodeCommitment(c), input]);

describe('challenge contract ABI', () => {
  it('decodes the event and resolve() calldata it encodes, rejects truncated data', () => {
    const c = keccakCommitment(frames);
    const ev = decodeChallengeStatusChanged(
      challengeStatusTopics(42),
      encodeChallengeStatusData(encodeCommitment(c), 2),
    );
    expect(ev).toEqual({ challengedBlockNumber: 42, challengedCommitment: encodeCommitment(c), status: 2 });
    // `cast sig-event "ChallengeStatusChanged(uint256 indexed,bytes,uint8)"`
    expect(Buffer.from(CHALLENGE_STATUS_CHANGED_TOPIC).toString('hex')).toBe(
      'c5d8c630ba2fdacb1db24c4599df78c7fb8cf97b5aecde34939597f6697bb1ad',
    );
    // `cast calldata "resolve(uint256,bytes,bytes)" 42 0x00aa 0x000102`
    const castCalldata =
      '7ae929d9000000000000000000000000000000000000000000000000000000000000002a' +
      '0000000000000000000000000000000000000000000000000000000000000060' +
      '00000000000000000000000000000000000000000000000000000000000000a0' +
      '0000000000000000000000000000000000000000000000000000000000000002' +
      '00aa000000000000000000000000000000000000000000000000000000000000' +
      '0000000000000000000000000000000000000000000000000000000000000003' +
      '0001020000000000000000000000000000000000000000000000000000000000';
    const encoded = encodeCall(RESOLVE_SELECTOR, [42, Uint8Array.of(0, 0xaa), Uint8Array.of(0, 1, 2)]);
    expect(Buffer.from(encoded).toString('hex')).toBe(castCalldata);
    expect(decodeResolveData(Buffer.from(castCalldata, 'hex'))).toEqual(Uint8Array.of(0, 1, 2));
    expect(decodeResolveData(resolveCalldata(42, c, frames))).toEqual(frames);
    expect(() => decodeResolveData(resolveCalldata(42, c, frames).subarray(0, 100))).toThrow(/malformed/);
    expect(() => decodeResolveData(resolveCalldata(42, c, new Uint8Array()))).toThrow(/empty resolve data/);
  });
});

describe('DA manager and alt-DA inputs', () => {
  it('version-0 data passes through; a commitment yields the DA server data', async () => {
    const { da, inputs } = setup();
    const c = keccakCommitment(frames);
    da.data.set(commitmentHex(c), frames);
    expect(await inputs.resolve(Uint8Array.of(0, 9), ref(10))).toEqual(Uint8Array.of(0, 9));
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toEqual(frames);
  });

  it('invalid commitments, other types and oversized keccak inputs are skipped', async () => {
    const { da, inputs } = setup();
    expect(await inputs.resolve(Uint8Array.of(1, 0, 1, 2), ref(10))).toBeUndefined();
    expect(await inputs.resolve(commitmentTxData(genericCommitment(Uint8Array.of(0x0c, 1))), ref(10))).toBeUndefined();
    const big = new Uint8Array(MAX_INPUT_SIZE + 1);
    const c = keccakCommitment(big);
    da.data.set(commitmentHex(c), big);
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toBeUndefined();
  });

  it('a DA server that is down is a temporary error, data not matching its commitment too (never used)', async () => {
    const { da, manager } = setup();
    const c = keccakCommitment(frames);
    da.down = true;
    await expect(manager.getInput(c, ref(10))).rejects.toMatchObject({
      severity: 'temporary',
      code: 'ALTDA_UNAVAILABLE',
    });
    da.down = false;
    const mismatching = { getInput: async () => Promise.reject(new TernError(ALTDA_MISMATCH, 'mismatch')) };
    const m2 = new DaManager(params, new FakeL1(), mismatching, log);
    m2.reset(ref(9));
    await expect(m2.getInput(c, ref(10))).rejects.toMatchObject({ severity: 'temporary' });
    da.data.set(commitmentHex(c), frames);
    expect(await manager.getInput(c, ref(10))).toEqual({ kind: 'data', data: frames });
  });

  it('missing data waits while L1 has no later block, then is critical once the challenge window passes unchallenged', async () => {
    const { l1, manager } = setup();
    const c = keccakCommitment(frames);
    l1.head = 12;
    await expect(manager.getInput(c, ref(10))).rejects.toMatchObject({ severity: 'temporary', code: 'ALTDA_PENDING' });
    l1.head = 100;
    await expect(manager.getInput(c, ref(10))).rejects.toMatchObject({
      severity: 'critical',
      code: 'ALTDA_MISSING_PAST_WINDOW',
    });
  });

  it('a challenged input that is never resolved expires and is skipped', async () => {
    const { l1, da, manager, inputs } = setup();
    const c = keccakCommitment(frames);
    l1.emit(12, c, 10, ChallengeStatus.Active);
    l1.head = 15;
    await expect(inputs.resolve(commitmentTxData(c), ref(10))).rejects.toMatchObject({ code: 'ALTDA_PENDING' });
    l1.head = 100;
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toBeUndefined();
    // Once expired the DA server is not asked again.
    const reads = da.reads;
    expect(await manager.getInput(c, ref(10))).toEqual({ kind: 'skip', reason: 'expired' });
    expect(da.reads).toBe(reads);
  });

  it('a resolved challenge supplies the input from the resolve() calldata', async () => {
    const { l1, inputs } = setup();
    const c = keccakCommitment(frames);
    l1.emit(12, c, 10, ChallengeStatus.Active);
    l1.emit(14, c, 10, ChallengeStatus.Resolved, resolveCalldata(10, c, frames));
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toEqual(frames);
  });

  it('a resolution whose data does not match the commitment is ignored (the challenge then expires)', async () => {
    const { l1, inputs } = setup();
    const c = keccakCommitment(frames);
    l1.emit(12, c, 10, ChallengeStatus.Active);
    l1.emit(14, c, 10, ChallengeStatus.Resolved, resolveCalldata(10, c, Uint8Array.of(0, 6, 6)));
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toBeUndefined();
  });

  it('a challenge that expires after the input was used resets the pipeline, and the re-derivation skips it', async () => {
    const { l1, da, manager, inputs } = setup();
    const c = keccakCommitment(frames);
    da.data.set(commitmentHex(c), frames);
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toEqual(frames);
    l1.emit(13, c, 10, ChallengeStatus.Active);
    da.data.clear();
    for (let n = 11; n < 17; n++) await manager.advanceL1Origin(ref(n));
    await expect(manager.advanceL1Origin(ref(17))).rejects.toMatchObject({ severity: 'reset' });
    manager.reset(ref(9));
    expect(await inputs.resolve(commitmentTxData(c), ref(10))).toBeUndefined();
  });
});
