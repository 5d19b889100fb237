// The genesis of a public Ethereum network (--mainnet, --sepolia, --holesky, --hoodi): the allocations
// @ethereumjs/genesis ships, with the chain config and header fields geth v1.16 gives the network
// (networks/l1.ts).
import { getGenesis } from '@ethereumjs/genesis';
import { TernError } from '../../common/errors.js';
import { L1_PRESETS, type L1Network } from '../../networks/l1.js';
import { parseChainConfig } from '../../primitives/chainConfig.js';
import { type Genesis, parseGenesis } from './genesis.js';

type Account = string | [balance: string, code?: string, storage?: [string, string][], nonce?: string];

/** The network's genesis, ready for ChainStore.initGenesis. */
export function loadL1Genesis(name: L1Network): Genesis {
  const preset = L1_PRESETS[name];
  const state = getGenesis(Number(preset.chainId)) as Record<string, Account> | undefined;
  if (state === undefined) throw new TernError('GENESIS', `no genesis allocations for ${name}`);
  const alloc: Record<string, Record<string, unknown>> = {};
  for (const [address, account] of Object.entries(state)) {
    if (typeof account === 'string') {
      alloc[address] = { balance: account };
      continue;
    }
    const [balance, code, storage, nonce] = account;
    alloc[address] = {
      balance,
      ...(code !== undefined && code !== '0x' ? { code } : {}),
      ...(storage !== undefined ? { storage: Object.fromEntries(storage) } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    };
  }
  return parseGenesis({ ...preset.genesis, alloc }, { config: parseChainConfig(preset.config) });
}
