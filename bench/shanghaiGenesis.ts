// The genesis of the in-process RPC benchmarks: chain 1337 with every fork through Shanghai at block 0, a 30M gas
// limit, a 1 gwei base fee and the accounts given.
import { type Genesis, parseGenesis } from '../src/main/exec/chain/genesis.js';
import { GENESIS_BLOCK_FORKS } from '../src/main/primitives/chainConfig.js';

export function shanghaiGenesis(alloc: Record<string, { balance: string; code?: string }>): Genesis {
  return parseGenesis({
    config: {
      chainId: 1337,
      ...Object.fromEntries(GENESIS_BLOCK_FORKS.map((f) => [f, 0])),
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    baseFeePerGas: '0x3b9aca00',
    alloc,
  });
}
