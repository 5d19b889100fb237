// Which network the command line selects: at most one of --mainnet, --sepolia, --holesky, --hoodi, --dev and
// --stack-network (geth's CheckExclusive over its network flags, with op-geth's --op-network among them).

import { UsageError } from '../common/errors.js';
import { L1_NETWORKS, type L1Network } from '../networks/l1.js';
import type { Settings } from './parse.js';

/** The selected network flags as typed, e.g. ['--mainnet', '--dev']. */
function selectedFlags(settings: Pick<Settings, 'get'>): string[] {
  const out: string[] = L1_NETWORKS.filter((n) => settings.get<boolean>(n)).map((n) => `--${n}`);
  if (settings.get<boolean>('dev')) out.push('--dev');
  if (settings.get<string | undefined>('stack-network') !== undefined) out.push('--stack-network');
  return out;
}

/** Throws a UsageError when more than one network is selected. */
function checkNetworkFlags(settings: Pick<Settings, 'get'>): void {
  const flags = selectedFlags(settings);
  if (flags.length > 1) throw new UsageError(`flags ${flags.join(', ')} can't be used at the same time`);
}

/** The public L1 network selected by its flag, if any. */
export function selectedL1Network(settings: Pick<Settings, 'get'>): L1Network | undefined {
  checkNetworkFlags(settings);
  return L1_NETWORKS.find((n) => settings.get<boolean>(n));
}
