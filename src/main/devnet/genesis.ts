// The devnet's two genesis files (geth format) and their hashes. L1: the --dev chain config with the portal and
// system config deployed and the test accounts funded. L2: an OP chain with every fork through Isthmus (Jovian
// optional) at genesis and the predeploys execution reads; or, with Isthmus (and Jovian) scheduled after genesis, a
// Holocene genesis whose upgraded predeploys sit behind contracts-bedrock's Proxy, as on a real chain, so the
// network-upgrade transactions can replace them. The hashes come from the same code `tern-exec init`
// runs, so rollup.json's genesis ids are exact before any process starts.
import { createRequire } from 'node:module';
import { type Genesis, genesisHeader, parseGenesis } from '../exec/chain/genesis.js';
import { devChainConfig, SYSTEM_CONTRACTS } from '../exec/dev/genesis.js';
import { CREATE2_DEPLOYER_CODE } from '../exec/evm/op/create2deployer.js';
import { UNSAFE_BLOCK_SIGNER_SLOT } from '../node/p2p/unsafeSigner.js';
import { headerHash } from '../primitives/block/header.js';
import { toHex as hex } from '../primitives/bytes.js';
import { GENESIS_BLOCK_FORKS } from '../primitives/chainConfig.js';
import { encodeHoloceneExtraData, encodeJovianExtraData } from '../primitives/op/eip1559.js';
import { accountFor, devAccounts } from './accounts.js';
import { daChallengeStorage, L1_DA_CHALLENGE_ADDRESS } from './altDa.js';
import { l1BlockFrontCode, portalCode, SYSTEM_CONFIG_OWNER_SLOT, systemConfigCode } from './contracts.js';

export const L1_PORTAL_ADDRESS = '0x5000000000000000000000000000000000000001';
export const L1_SYSTEM_CONFIG_ADDRESS = '0x5000000000000000000000000000000000000002';

export const PREDEPLOYS = {
  gasPriceOracle: '0x420000000000000000000000000000000000000f',
  sequencerFeeVault: '0x4200000000000000000000000000000000000011',
  l1Block: '0x4200000000000000000000000000000000000015',
  l2ToL1MessagePasser: '0x4200000000000000000000000000000000000016',
  baseFeeVault: '0x4200000000000000000000000000000000000019',
  l1FeeVault: '0x420000000000000000000000000000000000001a',
  operatorFeeVault: '0x420000000000000000000000000000000000001b',
  create2Deployer: '0x13b0d85ccb8bf860b6b79af3029fca081ae9bef2',
  beaconRoots: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  historyStorage: '0x0000f90827f1c53a10cb7a02335b175320002935',
} as const;
/** Where the contracts-bedrock L1Block implementation sits behind the front (OP's implementation address scheme). */
export const L1_BLOCK_IMPL_ADDRESS = '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30015';
/** The GasPriceOracle implementation behind its proxy on a Holocene genesis. */
export const GAS_PRICE_ORACLE_IMPL_ADDRESS = '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3000f';
/** ERC-1967's implementation slot (the admin slot stays zero: the upgrade transactions call from address zero). */
export const PROXY_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

export const FUNDING_WEI = 10n ** 22n; // 10,000 ETH per test account
export const EIP1559 = { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n } as const;

const hexQty = (n: bigint | number) => `0x${n.toString(16)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

type Alloc = Record<string, { balance: string; nonce?: string; code?: string; storage?: Record<string, string> }>;

function fundAccounts(alloc: Alloc): void {
  for (const a of devAccounts()) alloc[a.address] = { balance: hexQty(FUNDING_WEI) };
}

export interface L1GenesisOptions {
  /** Unix seconds; the dev beacon's genesis time. */
  timestamp: number;
  gasLimit?: bigint;
  /** Place the DataAvailabilityChallenge contract (tern-devnet --da altda). */
  altDa?: boolean;
}

/** The L1 genesis: the --dev chain's config (chain id 1337, forks through Prague) plus the devnet contracts. */
export function l1GenesisJson(opts: L1GenesisOptions): Record<string, unknown> {
  const alloc: Alloc = {};
  for (let i = 1; i <= 0x11; i++) alloc[`0x${i.toString(16).padStart(40, '0')}`] = { balance: '0x1' };
  alloc[`0x${'100'.padStart(40, '0')}`] = { balance: '0x1' };
  for (const [address, code] of Object.entries(SYSTEM_CONTRACTS))
    alloc[address] = { balance: '0x0', nonce: '0x1', code };
  fundAccounts(alloc);
  alloc[L1_PORTAL_ADDRESS] = { balance: '0x0', nonce: '0x1', code: hex(portalCode()) };
  alloc[L1_SYSTEM_CONFIG_ADDRESS] = {
    balance: '0x0',
    nonce: '0x1',
    code: hex(systemConfigCode()),
    storage: {
      [word(SYSTEM_CONFIG_OWNER_SLOT)]: word(BigInt(accountFor('admin').address)),
      // The unsafe block signer the rollup nodes check gossiped blocks against (read from this slot, as op-node).
      [UNSAFE_BLOCK_SIGNER_SLOT]: word(BigInt(accountFor('sequencer').address)),
    },
  };
  if (opts.altDa) {
    alloc[L1_DA_CHALLENGE_ADDRESS] = {
      balance: '0x0',
      nonce: '0x1',
      code: bedrockCode('DataAvailabilityChallenge'),
      storage: daChallengeStorage(accountFor('admin').address),
    };
  }
  return {
    config: devChainConfig(),
    nonce: '0x0',
    timestamp: hexQty(opts.timestamp),
    extraData: '0x',
    gasLimit: hexQty(opts.gasLimit ?? 30_000_000n),
    difficulty: '0x0',
    baseFeePerGas: hexQty(1_000_000_000n),
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc,
  };
}

/** Seconds after L2 genesis at which Isthmus and (optionally, not before Isthmus) Jovian activate. */
export interface ScheduledUpgrades {
  isthmus: number;
  jovian?: number | undefined;
}

/** Refuses a schedule the protocol cannot follow: Isthmus after genesis, Jovian not before it. */
export function checkScheduledUpgrades(s: ScheduledUpgrades): void {
  if (!Number.isSafeInteger(s.isthmus) || s.isthmus <= 0) {
    throw new Error(`Isthmus must activate after genesis, got ${s.isthmus} s`);
  }
  if (s.jovian !== undefined && (!Number.isSafeInteger(s.jovian) || s.jovian < s.isthmus)) {
    throw new Error(`Jovian must activate at or after Isthmus (${s.isthmus} s), got ${s.jovian} s`);
  }
}

export interface L2GenesisOptions {
  chainId: bigint;
  /** Unix seconds; rollup.json's genesis.l2_time. */
  timestamp: number;
  gasLimit: bigint;
  /** Jovian at genesis (off: never scheduled, unless `scheduled` schedules it). */
  jovian: boolean;
  /** Isthmus (and Jovian) after genesis, on a Holocene genesis; excludes `jovian`. */
  scheduled?: ScheduledUpgrades | undefined;
  /** Jovian's minimum base fee (wei), written into the genesis extraData. */
  minBaseFee?: bigint;
}

const require = createRequire(import.meta.url);

/** Deployed bytecode of a contracts-bedrock 0.17.3 contract. */
export function bedrockCode(name: string): string {
  const artifact = require(`contracts-bedrock-0173/forge-artifacts/${name}.sol/${name}.json`) as {
    deployedBytecode: { object: string };
  };
  return artifact.deployedBytecode.object.toLowerCase();
}

/** The OP chain config (geth format): op-geth maps Canyon→Shanghai, Ecotone→Cancun, Isthmus→Prague. */
export function l2ChainConfig(
  opts: Pick<L2GenesisOptions, 'chainId' | 'jovian' | 'scheduled' | 'timestamp'>,
): Record<string, unknown> {
  const blocks = [...GENESIS_BLOCK_FORKS, 'bedrockBlock'];
  const atGenesis = [
    'shanghaiTime',
    'cancunTime',
    'regolithTime',
    'canyonTime',
    'deltaTime',
    'ecotoneTime',
    'fjordTime',
    'graniteTime',
    'holoceneTime',
  ];
  const times: Record<string, number> = Object.fromEntries(atGenesis.map((t) => [t, 0]));
  const s = opts.scheduled;
  if (s === undefined) {
    Object.assign(times, { pragueTime: 0, isthmusTime: 0 }, opts.jovian ? { jovianTime: 0 } : {});
  } else {
    const isthmus = opts.timestamp + s.isthmus;
    Object.assign(times, { pragueTime: isthmus, isthmusTime: isthmus });
    if (s.jovian !== undefined) times.jovianTime = opts.timestamp + s.jovian;
  }
  return {
    chainId: Number(opts.chainId),
    ...Object.fromEntries(blocks.map((b) => [b, 0])),
    terminalTotalDifficulty: 0,
    ...times,
    optimism: {
      eip1559Elasticity: Number(EIP1559.elasticity),
      eip1559Denominator: Number(EIP1559.denominator),
      eip1559DenominatorCanyon: Number(EIP1559.denominatorCanyon),
    },
  };
}

export function l2GenesisJson(opts: L2GenesisOptions): Record<string, unknown> {
  if (opts.scheduled !== undefined) {
    if (opts.jovian) throw new Error('Jovian at genesis excludes scheduling Isthmus after genesis');
    checkScheduledUpgrades(opts.scheduled);
  }
  const alloc: Alloc = {};
  // op-chain-ops gives every address of the precompile range 1 wei, so none counts as empty.
  for (let i = 0; i < 256; i++) alloc[`0x${i.toString(16).padStart(40, '0')}`] = { balance: '0x1' };
  fundAccounts(alloc);
  alloc[L1_BLOCK_IMPL_ADDRESS] = { balance: '0x0', code: bedrockCode('L1Block') };
  // isEcotone and isFjord (slot 0, bytes 0 and 1): the Fjord L1-fee formula is the one in force from Fjord on.
  const gpoFlags = { [word(0n)]: word(0x0101n) };
  if (opts.scheduled === undefined) {
    alloc[PREDEPLOYS.l1Block] = { balance: '0x0', code: hex(l1BlockFrontCode(BigInt(L1_BLOCK_IMPL_ADDRESS))) };
    alloc[PREDEPLOYS.gasPriceOracle] = { balance: '0x0', code: bedrockCode('GasPriceOracle'), storage: gpoFlags };
  } else {
    // Behind proxies (admin zero), as the upgrade transactions' upgradeTo calls from address zero expect; the
    // operator fee vault's proxy has no implementation until Isthmus deploys one.
    const proxy = bedrockCode('Proxy');
    const behind = (impl: string) => ({ [PROXY_IMPLEMENTATION_SLOT]: word(BigInt(impl)) });
    alloc[PREDEPLOYS.l1Block] = { balance: '0x0', code: proxy, storage: behind(L1_BLOCK_IMPL_ADDRESS) };
    alloc[GAS_PRICE_ORACLE_IMPL_ADDRESS] = { balance: '0x0', code: bedrockCode('GasPriceOracle') };
    alloc[PREDEPLOYS.gasPriceOracle] = {
      balance: '0x0',
      code: proxy,
      storage: { ...behind(GAS_PRICE_ORACLE_IMPL_ADDRESS), ...gpoFlags },
    };
    alloc[PREDEPLOYS.operatorFeeVault] = { balance: '0x0', code: proxy };
  }
  alloc[PREDEPLOYS.l2ToL1MessagePasser] = { balance: '0x0', code: bedrockCode('L2ToL1MessagePasser') };
  alloc[PREDEPLOYS.create2Deployer] = { balance: '0x0', code: hex(CREATE2_DEPLOYER_CODE) };
  // EIP-2935's history contract comes with Isthmus: its upgrade transactions deploy it when Isthmus is scheduled.
  const system =
    opts.scheduled === undefined ? [PREDEPLOYS.beaconRoots, PREDEPLOYS.historyStorage] : [PREDEPLOYS.beaconRoots];
  for (const a of system) {
    alloc[a] = { balance: '0x0', nonce: '0x1', code: SYSTEM_CONTRACTS[a] as string };
  }
  const params = { denominator: EIP1559.denominatorCanyon, elasticity: EIP1559.elasticity };
  // From Holocene the header carries the EIP-1559 parameters; the genesis must too, or the first base fee fails.
  const extraData = opts.jovian
    ? encodeJovianExtraData(params, opts.minBaseFee ?? 0n)
    : encodeHoloceneExtraData(params);
  return {
    config: l2ChainConfig(opts),
    nonce: '0x0',
    timestamp: hexQty(opts.timestamp),
    extraData: hex(extraData),
    gasLimit: hexQty(opts.gasLimit),
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: hexQty(1_000_000_000n),
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    number: '0x0',
    gasUsed: '0x0',
    parentHash: `0x${'00'.repeat(32)}`,
    alloc,
  };
}

/** The genesis block's hash and timestamp, computed as `tern-exec init` computes them. */
export function genesisBlockId(json: Record<string, unknown>): { hash: string; number: number; time: number } {
  const g: Genesis = parseGenesis(json);
  const h = genesisHeader(g);
  return { hash: hex(headerHash(h)), number: Number(h.number), time: Number(h.timestamp) };
}
