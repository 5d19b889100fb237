// tern-exec's command line: every flag of op-geth v1.101603.3-rc.3 as the seed document lists it (sections 2.1 and
// 2.4-2.15), with its kind, default, help, heading and TOML key, and the sub-commands. Parsing, --help, the README,
// environment variables (TERN_EXEC_*) and the TOML config file all derive from this table, which is assembled
// here from one file per section in execFlags/ (the sections' order is the table's order).
//
// TOML keys follow geth's config file (`geth dumpconfig`: sections Eth, Node, Node.P2P, Metrics, Ethstats) wherever
// geth keeps the setting there; settings geth only takes as flags get keys in the sections Log, Pprof, Dev and Tern.

import { ACCOUNT_FLAGS } from './execFlags/account.js';
import { CHAIN_FLAGS } from './execFlags/chain.js';
import { DEV_FLAGS } from './execFlags/dev.js';
import { GPO_FLAGS } from './execFlags/gasPriceOracle.js';
import { LOGGING_FLAGS } from './execFlags/logging.js';
import { META_FLAGS } from './execFlags/meta.js';
import { METRICS_FLAGS } from './execFlags/metrics.js';
import { P2P_FLAGS } from './execFlags/p2p.js';
import { PERFORMANCE_FLAGS } from './execFlags/performance.js';
import { ROLLUP_FLAGS } from './execFlags/rollup.js';
import { RPC_FLAGS } from './execFlags/rpc.js';
import { STATE_FLAGS } from './execFlags/state.js';
import { TXPOOL_FLAGS } from './execFlags/txpool.js';
import type { FlagSpec, ProgramSpec, SubcommandSpec } from './flag.js';

/** The whole table, in the seed's order (--help, the README and `dumpconfig` list flags in this order). */
const FLAGS: readonly FlagSpec[] = [
  ...META_FLAGS,
  ...ACCOUNT_FLAGS,
  ...RPC_FLAGS,
  ...DEV_FLAGS,
  ...CHAIN_FLAGS,
  ...GPO_FLAGS,
  ...LOGGING_FLAGS,
  ...METRICS_FLAGS,
  ...P2P_FLAGS,
  ...PERFORMANCE_FLAGS,
  ...ROLLUP_FLAGS,
  ...STATE_FLAGS,
  ...TXPOOL_FLAGS,
];

const SUBCOMMANDS: readonly SubcommandSpec[] = [
  {
    name: 'init',
    args: '<genesis.json>',
    help: 'Write the genesis block and initialise the database',
    implemented: true,
    minArgs: 1,
    maxArgs: 1,
  },
  {
    name: 'import',
    args: '<file.rlp>...',
    help: 'Import blocks from RLP-encoded files',
    implemented: true,
    minArgs: 1,
    maxArgs: Number.POSITIVE_INFINITY,
  },
  {
    name: 'export',
    args: '<file> [first last]',
    help: 'Export the chain, or blocks first..last (appended), to an RLP file (.gz: compressed)',
    implemented: true,
    minArgs: 1,
    maxArgs: 3,
  },
  {
    name: 'import-history',
    args: '<dir>',
    help: 'Import era1 archives (checked against checksums.txt and their accumulator roots) into a database at genesis',
    implemented: true,
    minArgs: 1,
    maxArgs: 1,
  },
  {
    name: 'export-history',
    args: '<dir> <first> <last>',
    help: 'Export blocks first..last with their receipts to era1 archives of 8192 blocks and a checksums.txt',
    implemented: true,
    minArgs: 3,
    maxArgs: 3,
  },
  {
    name: 'dumpconfig',
    args: '',
    help: 'Print the effective configuration as TOML',
    implemented: true,
    minArgs: 0,
    maxArgs: 0,
  },
  {
    name: 'console',
    args: '',
    help: 'Start the node with an interactive JavaScript console attached in the same process',
    implemented: true,
    minArgs: 0,
    maxArgs: 0,
  },
  {
    name: 'attach',
    args: '[endpoint]',
    help: 'Interactive JavaScript console attached to a running node over IPC, HTTP or WS',
    implemented: true,
    minArgs: 0,
    maxArgs: 1,
  },
  {
    name: 'execute-witness',
    args: '<file.json>',
    help: 'Execute one block statelessly from a witness file',
    implemented: true,
    minArgs: 1,
    maxArgs: 1,
  },
  {
    name: 'snapshot',
    args: 'prune-state [root]',
    help: 'Offline state pruning: keep the head state, delete every other trie node and unused code (--bloomfilter.size)',
    implemented: true,
    minArgs: 1,
    maxArgs: 2,
  },
];

export const EXEC_PROGRAM: ProgramSpec = {
  program: 'tern-exec',
  envPrefix: 'TERN_EXEC',
  summary: 'Execution layer of an OP-Stack rollup (the op-geth role), driven by tern-node over the engine API',
  flags: FLAGS,
  subcommands: SUBCOMMANDS,
  tomlConfig: true,
};
