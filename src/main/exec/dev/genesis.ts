// The --dev chain's genesis, shaped as geth's DeveloperGenesisBlock: chain id 1337, every fork through Prague
// active from block 0 (with Cancun's and Prague's blob parameters), the precompile addresses holding 1 wei (so they
// count as existing accounts), the system contracts the forks call into, and the developer account funded.
// The genesis time is the start time (not geth's 0), so the beacon endpoints can map block times to slots.
import { GENESIS_BLOCK_FORKS } from '../../primitives/chainConfig.js';
import { type Genesis, parseGenesis } from '../chain/genesis.js';

export const DEV_CHAIN_ID = 1337;
/** geth funds the faucet with 2^256 - 9 wei: all of it, less the precompiles' 1 wei each. */
export const DEV_BALANCE = (1n << 256n) - 9n;

/** Runtime code of the system contracts (the bytecode the EIPs specify, deployed with nonce 1 as geth does). */
export const SYSTEM_CONTRACTS: Readonly<Record<string, string>> = {
  // EIP-4788 beacon roots
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02':
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
  // EIP-2935 history storage
  '0x0000f90827f1c53a10cb7a02335b175320002935':
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
  // EIP-7002 withdrawal request queue
  '0x00000961ef480eb55e80d19ad83579a64c007002':
    '0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd',
  // EIP-7251 consolidation request queue
  '0x0000bbddc7ce488642fb579f8b00f3a590007251':
    '0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd',
};

/** The EIP-6110 deposit contract address Prague blocks read deposit logs from (no contract is deployed there). */
export const DEV_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa';

export interface DevGenesisOptions {
  /** 0x-prefixed address of the developer account. */
  developer: string;
  /** --dev.gaslimit */
  gasLimit: bigint;
  /** Unix seconds. */
  timestamp: bigint;
}

const hexQty = (n: bigint | number) => `0x${n.toString(16)}`;

/** The chain config of the dev chain as geth-format JSON (the form the database stores). */
export function devChainConfig(): Record<string, unknown> {
  return {
    chainId: DEV_CHAIN_ID,
    ...Object.fromEntries(GENESIS_BLOCK_FORKS.map((b) => [b, 0])),
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    depositContractAddress: DEV_DEPOSIT_CONTRACT,
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
  };
}

/** The dev genesis as a geth genesis.json document. */
export function devGenesisJson(opts: DevGenesisOptions): Record<string, unknown> {
  const alloc: Record<string, Record<string, string>> = {};
  // Precompiles 0x01..0x11 (through the BLS12-381 ones) and P256VERIFY at 0x0100.
  for (let i = 1; i <= 0x11; i++) alloc[`0x${i.toString(16).padStart(40, '0')}`] = { balance: '0x1' };
  alloc[`0x${'100'.padStart(40, '0')}`] = { balance: '0x1' };
  for (const [address, code] of Object.entries(SYSTEM_CONTRACTS))
    alloc[address] = { balance: '0x0', nonce: '0x1', code };
  alloc[opts.developer.toLowerCase()] = { balance: hexQty(DEV_BALANCE) };
  return {
    config: devChainConfig(),
    nonce: '0x0',
    timestamp: hexQty(opts.timestamp),
    extraData: '0x',
    gasLimit: hexQty(opts.gasLimit),
    difficulty: '0x0',
    baseFeePerGas: hexQty(1_000_000_000n),
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc,
  };
}

export function devGenesis(opts: DevGenesisOptions): Genesis {
  return parseGenesis(devGenesisJson(opts));
}
