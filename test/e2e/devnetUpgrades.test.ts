// tern-devnet --isthmus-at/--jovian-at: from a Holocene genesis the sequencer builds the Isthmus and Jovian
// activation blocks with their network-upgrade transactions, the replica derives the same blocks from layer 1 alone
// (every block hash equal), and the upgraded predeploys answer as the specs say: each proxy points at the spec's
// implementation address, whose code has the spec's code hash; the GasPriceOracle reports isIsthmus/isJovian; the
// L1-info deposits switch to the new setters and succeed. About 30 s here; the limits add up to 170 s at most.
import { encodeFunctionData, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import {
  EIP2935_CODE_HASH,
  ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS,
  ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH,
} from '../../src/main/node/derive/upgrades/isthmus.js';
import {
  JOVIAN_GAS_PRICE_ORACLE_ADDRESS,
  JOVIAN_GAS_PRICE_ORACLE_CODE_HASH,
  JOVIAN_L1_BLOCK_ADDRESS,
  JOVIAN_L1_BLOCK_CODE_HASH,
} from '../../src/main/node/derive/upgrades/jovian.js';
import { DevnetChild } from './devnetChild.js';

const ISTHMUS_AT = 2;
const JOVIAN_AT = 4;

const GPO = '0x420000000000000000000000000000000000000f';
const L1_BLOCK = '0x4200000000000000000000000000000000000015';
const OPERATOR_FEE_VAULT = '0x420000000000000000000000000000000000001b';
const HISTORY_STORAGE = '0x0000f90827f1c53a10cb7a02335b175320002935';
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
const abi = parseAbi([
  'function isIsthmus() view returns (bool)',
  'function isJovian() view returns (bool)',
  'function operatorFeeScalar() view returns (uint32)',
  'function operatorFeeConstant() view returns (uint64)',
  'function daFootprintGasScalar() view returns (uint16)',
  'function setL1BlockValuesEcotone()',
  'function setL1BlockValuesIsthmus()',
  'function setL1BlockValuesJovian()',
]);
const selector = (name: 'setL1BlockValuesEcotone' | 'setL1BlockValuesIsthmus' | 'setL1BlockValuesJovian') =>
  encodeFunctionData({ abi, functionName: name });
const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const toHex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

type Node = DevnetInfo['nodes'][number];
type SyncStatus = { safe_l2: { number: number } };
type Block = { hash: string; transactions: Array<{ hash: string; input: string; to: string }> };

let devnet: DevnetChild;
let info: DevnetInfo;

const qty = (n: number) => `0x${n.toString(16)}`;
const block = (n: Node, number: number) => rpcCall<Block>(n.execRpc, 'eth_getBlockByNumber', [qty(number), true]);
const call = (
  n: Node,
  to: string,
  functionName: 'isIsthmus' | 'isJovian' | 'operatorFeeScalar' | 'operatorFeeConstant' | 'daFootprintGasScalar',
  at: number,
) => rpcCall<string>(n.execRpc, 'eth_call', [{ to, data: encodeFunctionData({ abi, functionName }) }, qty(at)]);
async function codeHash(n: Node, address: string): Promise<string> {
  return toHex(keccak256(hexBytes(await rpcCall<string>(n.execRpc, 'eth_getCode', [address, 'latest']))));
}

describe('tern-devnet crossing Isthmus and Jovian', () => {
  beforeAll(async () => {
    const args = [
      `--isthmus-at=${ISTHMUS_AT}`,
      `--jovian-at=${JOVIAN_AT}`,
      '--replicas=1',
      '--status-interval=2',
      '--l1-block-time=1',
      '--da=calldata',
    ];
    devnet = new DevnetChild('tern-devnet-upgrades-e2e-', args);
    info = await devnet.ready(75_000);
  }, 80_000);

  afterAll(async () => devnet?.cleanup());

  it('the replica derives the upgrade blocks from layer 1 with the same hashes as the sequencer', async () => {
    if (info.missing.length > 0) throw new Error(`the devnet is not whole: ${info.missing.join('; ')}`);
    const [seq, replica] = info.nodes as [Node, Node];
    const status = (n: Node) => rpcCall<SyncStatus>(n.nodeRpc as string, 'optimism_syncStatus');
    const past = JOVIAN_AT + 1;
    const safe = await devnet.until(`the replica safe head past block ${past}`, 60_000, async () => {
      const s = (await status(replica)).safe_l2.number;
      return s >= past ? s : undefined;
    });
    for (let n = 1; n <= safe; n++) {
      expect((await block(replica, n)).hash, `block ${n}`).toBe((await block(seq, n)).hash);
    }
  }, 65_000);

  it('builds the activation blocks with the spec transactions, every one succeeding', async () => {
    const seq = info.nodes[0] as Node;
    // L1-info deposit plus 8 Isthmus / 5 Jovian upgrade transactions; other blocks carry the L1-info deposit alone.
    const want: Record<number, number> = { [ISTHMUS_AT]: 9, [JOVIAN_AT]: 6 };
    for (let n = 1; n <= JOVIAN_AT + 1; n++) {
      const b = await block(seq, n);
      expect(b.transactions, `block ${n}`).toHaveLength(want[n] ?? 1);
      for (const tx of b.transactions) {
        const r = await rpcCall<{ status: string }>(seq.execRpc, 'eth_getTransactionReceipt', [tx.hash]);
        expect(r.status, `block ${n} tx ${tx.hash}`).toBe('0x1');
      }
      // The L1-info deposit takes the new setter from the block after each activation on.
      const setter =
        n > JOVIAN_AT
          ? 'setL1BlockValuesJovian'
          : n > ISTHMUS_AT
            ? 'setL1BlockValuesIsthmus'
            : 'setL1BlockValuesEcotone';
      expect(b.transactions[0]?.input.slice(0, 10), `block ${n} L1-info setter`).toBe(selector(setter));
    }
  }, 20_000);

  it('leaves the predeploys upgraded as the specs say', async () => {
    const seq = info.nodes[0] as Node;
    const impl = async (proxy: string) =>
      `0x${(await rpcCall<string>(seq.execRpc, 'eth_getStorageAt', [proxy, IMPLEMENTATION_SLOT, 'latest'])).slice(-40)}`;
    expect(await impl(L1_BLOCK)).toBe(`0x${JOVIAN_L1_BLOCK_ADDRESS}`);
    expect(await impl(GPO)).toBe(`0x${JOVIAN_GAS_PRICE_ORACLE_ADDRESS}`);
    expect(await impl(OPERATOR_FEE_VAULT)).toBe(`0x${ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS}`);
    expect(await codeHash(seq, `0x${JOVIAN_L1_BLOCK_ADDRESS}`)).toBe(JOVIAN_L1_BLOCK_CODE_HASH);
    expect(await codeHash(seq, `0x${JOVIAN_GAS_PRICE_ORACLE_ADDRESS}`)).toBe(JOVIAN_GAS_PRICE_ORACLE_CODE_HASH);
    expect(await codeHash(seq, `0x${ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS}`)).toBe(ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH);
    expect(await codeHash(seq, HISTORY_STORAGE)).toBe(EIP2935_CODE_HASH);
    const TRUE = `0x${'0'.repeat(63)}1`;
    const ZERO = `0x${'0'.repeat(64)}`;
    // Isthmus's GasPriceOracle from its activation block, Jovian's from its own.
    expect(await call(seq, GPO, 'isIsthmus', ISTHMUS_AT)).toBe(TRUE);
    expect(await call(seq, GPO, 'isIsthmus', JOVIAN_AT)).toBe(TRUE);
    expect(await call(seq, GPO, 'isJovian', JOVIAN_AT)).toBe(TRUE);
    await expect(call(seq, GPO, 'isIsthmus', ISTHMUS_AT - 1)).rejects.toThrow();
    // The operator-fee getters read the system config's (zero) operator fee params, set by the L1-info deposit.
    expect(await call(seq, L1_BLOCK, 'operatorFeeScalar', ISTHMUS_AT + 1)).toBe(ZERO);
    expect(await call(seq, L1_BLOCK, 'operatorFeeConstant', ISTHMUS_AT + 1)).toBe(ZERO);
    // Jovian's L1-info deposit sets the DA footprint scalar: 400, the default for a zero system-config value.
    expect(BigInt(await call(seq, L1_BLOCK, 'daFootprintGasScalar', JOVIAN_AT + 1))).toBe(400n);
  }, 20_000);
});
