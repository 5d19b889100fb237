// EIP-2124 fork ids: geth's published mainnet vectors (core/forkid tests, block and time forks through BPO2),
// geth's validation table, and OP Sepolia / OP Mainnet ids over the bundled registry configs against the values
// op-reth's chain spec tests publish for the same chains (op-geth and op-reth peer with each other, so they agree).
import { describe, expect, it } from 'vitest';
import {
  checksumUpdate,
  createForkFilter,
  type ForkId,
  forkIdAt,
  gatherForks,
} from '../../../../../src/main/exec/p2p/forkId.js';
import { networkChainConfig, registryGenesisHash } from '../../../../../src/main/exec/rollup/superchain.js';
import { L1_PRESETS } from '../../../../../src/main/networks/l1.js';
import { fromHex } from '../../../../../src/main/primitives/bytes.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';

const hash4 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0);
  return b;
};
const MAX_U64 = (1n << 64n) - 1n;

const mainnet = parseChainConfig(L1_PRESETS.mainnet.config);
const mainnetGenesis = fromHex(L1_PRESETS.mainnet.genesisHash);
const mainnetSchedule = gatherForks(mainnet, 0n);

// geth core/forkid TestCreation, mainnet: [head, time, hash, next].
const MAINNET: Array<[bigint, bigint, number, bigint]> = [
  [0n, 0n, 0xfc64ec04, 1150000n],
  [1149999n, 0n, 0xfc64ec04, 1150000n],
  [1150000n, 0n, 0x97c2c34c, 1920000n],
  [1920000n, 0n, 0x91d1f948, 2463000n],
  [2463000n, 0n, 0x7a64da13, 2675000n],
  [2675000n, 0n, 0x3edd5b10, 4370000n],
  [4370000n, 0n, 0xa00bc324, 7280000n],
  [7280000n, 0n, 0x668db0af, 9069000n],
  [9069000n, 0n, 0x879d6e30, 9200000n],
  [9200000n, 0n, 0xe029e991, 12244000n],
  [12244000n, 0n, 0x0eb440f6, 12965000n],
  [12965000n, 0n, 0xb715077d, 13773000n],
  [13773000n, 0n, 0x20c327fc, 15050000n],
  [15050000n, 0n, 0xf0afd0e3, 1681338455n],
  [20000000n, 1681338454n, 0xf0afd0e3, 1681338455n],
  [20000000n, 1681338455n, 0xdce96c2d, 1710338135n],
  [30000000n, 1710338135n, 0x9f3d2254, 1746612311n],
  [30000000n, 1746612311n, 0xc376cf8b, 1764798551n],
  [30000000n, 1764798551n, 0x5167e2a6, 1765290071n],
  [30000000n, 1765290071n, 0xcba2a1c0, 1767747671n],
  [30000000n, 1767747671n, 0x07c9462e, 0n],
  [50000000n, 2000000000n, 0x07c9462e, 0n],
];

describe('forkIdAt (EIP-2124)', () => {
  it.each(MAINNET)('mainnet head %s time %s', (head, time, hash, next) => {
    const id = forkIdAt(mainnetSchedule, mainnetGenesis, head, time);
    expect(id.hash).toEqual(hash4(hash));
    expect(id.next).toBe(next);
  });

  it('leaves out time forks at or before the genesis time (geth TestTimeBasedForkInGenesis)', () => {
    const genesis = new Uint8Array(32).fill(7);
    const t = 1690475657n;
    const cfg = (shanghai: bigint, cancun: bigint) =>
      parseChainConfig({
        chainId: 1337,
        homesteadBlock: 0,
        londonBlock: 0,
        shanghaiTime: shanghai,
        cancunTime: cancun,
      });
    for (const [s, c] of [
      [t - 1n, t + 1n],
      [t, t + 1n],
    ] as const) {
      const id = forkIdAt(gatherForks(cfg(s, c), t), genesis, 0n, t);
      expect(id.next).toBe(t + 1n);
      expect(id.hash).toEqual(forkIdAt({ byBlock: [], byTime: [] }, genesis, 0n, 0n).hash);
    }
    expect(forkIdAt(gatherForks(cfg(t + 1n, t + 2n), t), genesis, 0n, t).next).toBe(t + 1n);
  });
});

describe('OP chains from the bundled registry (op-reth chain spec fork ids)', () => {
  it('OP Sepolia: Canyon (Shanghai) through Isthmus (Prague), deduplicated', () => {
    const schedule = gatherForks(networkChainConfig('op-sepolia'), 1691802540n);
    const genesis = fromHex(registryGenesisHash('op-sepolia') as string);
    const cases: Array<[bigint, number, bigint]> = [
      [0n, 0x67a40328, 1699981200n],
      [1699981199n, 0x67a40328, 1699981200n],
      [1699981200n, 0xa48d6a00, 1708534800n],
      [1708534800n, 0xcc17c7eb, 1716998400n],
      [1716998400n, 0x540a8c5d, 1723478400n],
      [1723478400n, 0x75dea41e, 1732633200n],
      [1732633200n, 0x4a1c792e, 1744905600n],
      [1744905600n, 0x6c625ee1, 0n],
    ];
    for (const [time, hash, next] of cases) {
      expect(forkIdAt(schedule, genesis, 0n, time)).toEqual({ hash: hash4(hash), next });
    }
  });

  it('OP Mainnet: the legacy Berlin block and Bedrock, then the time forks', () => {
    const schedule = gatherForks(networkChainConfig('op-mainnet'), 1686068903n);
    expect(schedule.byBlock).toEqual([3950000n, 105235063n]);
    // A node's block 0: OP Mainnet's legacy genesis (the registry records the Bedrock block, 105235063, instead).
    const genesis = fromHex('0x7ca38a1916c42007829c55e69d3e9a73265554b586a499015373241b8a3fa48b');
    const cases: Array<[bigint, bigint, number, bigint]> = [
      [0n, 0n, 0xcaf517ed, 3950000n],
      [105235063n, 0n, 0xe3398d7c, 1704992401n],
      [105235063n, 1704992401n, 0xbdd4fdb2, 1710374401n],
      [105235063n, 1710374401n, 0x19da4c52, 1720627201n],
      [105235063n, 1720627201n, 0x49fbfe1e, 1726070401n],
      [105235063n, 1726070401n, 0x44704cde, 1736445601n],
      [105235063n, 1736445601n, 0x2bd93dc8, 1746806401n],
      [105235063n, 1746806401n, 0x37be758f, 0n],
    ];
    for (const [head, time, hash, next] of cases) {
      expect(forkIdAt(schedule, genesis, head, time)).toEqual({ hash: hash4(hash), next });
    }
  });
});

describe('createForkFilter (geth TestValidation)', () => {
  const legacy = parseChainConfig(
    Object.fromEntries(Object.entries(L1_PRESETS.mainnet.config).filter(([k]) => !k.endsWith('Time'))) as Record<
      string,
      unknown
    >,
  );
  const REMOTE_STALE = 'remote-stale';
  const INCOMPATIBLE = 'local-incompatible-or-stale';
  const cases: Array<[boolean, bigint, bigint, number, bigint, string]> = [
    [true, 15050000n, 0n, 0xf0afd0e3, 0n, 'ok'],
    [true, 15050000n, 0n, 0xf0afd0e3, MAX_U64, 'ok'],
    [true, 7279999n, 0n, 0xa00bc324, 0n, 'ok'],
    [true, 7279999n, 0n, 0xa00bc324, 7280000n, 'ok'],
    [true, 7279999n, 0n, 0xa00bc324, MAX_U64, 'ok'],
    [true, 7280000n, 0n, 0xa00bc324, 7280000n, 'ok'],
    [true, 7987396n, 0n, 0xa00bc324, 7280000n, 'ok'],
    [true, 7987396n, 0n, 0x3edd5b10, 4370000n, 'ok'],
    [true, 7279999n, 0n, 0x668db0af, 0n, 'ok'],
    [true, 4369999n, 0n, 0xa00bc324, 0n, 'ok'],
    [true, 7987396n, 0n, 0xa00bc324, 0n, REMOTE_STALE],
    [true, 7987396n, 0n, 0x5cddc0e1, 0n, INCOMPATIBLE],
    [true, 7279999n, 0n, 0x5cddc0e1, 0n, INCOMPATIBLE],
    [true, 7987396n, 0n, 0xafec6b27, 0n, INCOMPATIBLE],
    [true, 88888888n, 0n, 0xf0afd0e3, 88888888n, INCOMPATIBLE],
    [true, 7279999n, 0n, 0xa00bc324, 7279999n, INCOMPATIBLE],
    [false, 15050000n, 0n, 0xf0afd0e3, 0n, 'ok'],
    [false, 15050000n, 0n, 0xf0afd0e3, 1681338455n, 'ok'],
    [false, 15050000n, 0n, 0xf0afd0e3, MAX_U64, 'ok'],
    [false, 20000000n, 1681338455n, 0xf0afd0e3, 1681338455n, 'ok'],
    [false, 20123456n, 1681338456n, 0xf0afd0e3, 1681338455n, 'ok'],
    [false, 20000000n, 1681338455n, 0x20c327fc, 15050000n, 'ok'],
    [false, 15050000n, 0n, 0xdce96c2d, 0n, 'ok'],
    [false, 13773000n, 0n, 0xf0afd0e3, 0n, 'ok'],
    [false, 20000000n, 1681338455n, 0xf0afd0e3, 0n, REMOTE_STALE],
    [false, 15050000n, 0n, checksumUpdate(0xf0afd0e3, MAX_U64), 0n, INCOMPATIBLE],
    [false, 15050000n, 0n, checksumUpdate(0xdce96c2d, MAX_U64), 0n, INCOMPATIBLE],
    [false, 888888888n, 1660000000n, 0xf0afd0e3, 1660000000n, INCOMPATIBLE],
    [false, 19999999n, 1667999999n, 0xf0afd0e3, 1667999999n, INCOMPATIBLE],
    [false, 20000000n, 1681338455n, 0xdce96c2d, 0n, 'ok'],
    [false, 20000000n, 1681338455n, 0xdce96c2d, MAX_U64, 'ok'],
    [false, 20000000n, 1668000000n, 0xdce96c2d, 0n, 'ok'],
    [false, 20000000n, 1668000000n, 0xdce96c2d, 1710338135n, 'ok'],
    [false, 21000000n, 1710338135n, 0xdce96c2d, 1710338135n, 'ok'],
    [false, 21123456n, 1710338136n, 0xdce96c2d, 1710338135n, 'ok'],
    [false, 0n, 0n, 0x3edd5b10, 1710338135n, 'ok'],
    [false, 21000000n, 1700000000n, 0x9f3d2254, 0n, 'ok'],
    [false, 21000000n, 1678000000n, 0xc376cf8b, 0n, 'ok'],
    [false, 21000000n, 1710338135n, 0xdce96c2d, 0n, REMOTE_STALE],
    [false, 20000000n, 1681338455n, checksumUpdate(0xdce96c2d, MAX_U64), 0n, INCOMPATIBLE],
    [false, 20000000n, 1668000000n, checksumUpdate(0x9f3d2254, MAX_U64), 0n, INCOMPATIBLE],
    [false, 20000000n, 1681338455n, 0x12345678, 0n, INCOMPATIBLE],
    [false, 88888888n, 8888888888n, 0x07c9462e, 8888888888n, INCOMPATIBLE],
    [false, 20999999n, 1699999999n, 0x71147644, 1700000000n, INCOMPATIBLE],
  ];
  it.each(cases)('legacy=%s head %s time %s remote %s/%s → %s', (isLegacy, head, time, hash, next, want) => {
    const schedule = gatherForks(isLegacy ? legacy : mainnet, 0n);
    const filter = createForkFilter(schedule, mainnetGenesis, () => ({ number: head, time }));
    const id: ForkId = { hash: hash4(hash), next };
    expect(filter(id)).toBe(want);
  });

  it('rejects a hash of the wrong length', () => {
    const filter = createForkFilter(mainnetSchedule, mainnetGenesis, () => ({ number: 0n, time: 0n }));
    expect(filter({ hash: new Uint8Array(3), next: 0n })).toBe(INCOMPATIBLE);
  });
});
