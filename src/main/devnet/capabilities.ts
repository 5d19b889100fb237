// What the devnet can start, read from the programs' own flag tables: a flag marked not implemented makes its
// program refuse to run, so a role whose flags are not all built is reported as missing instead of started.
import { BATCHER_PROGRAM } from '../cli/batcherFlags.js';
import { EXEC_PROGRAM } from '../cli/execFlags.js';
import type { ProgramSpec } from '../cli/flag.js';
import { NODE_PROGRAM } from '../cli/nodeFlags.js';

export type Role = 'l1' | 'engine' | 'replicaNode' | 'sequencerNode' | 'batcher';

/** The flags each role passes to its program. */
export const ROLE_FLAGS: Readonly<Record<Role, readonly string[]>> = {
  l1: ['dev', 'dev.period', 'dev.beacon.addr', 'dev.beacon.port', 'datadir', 'http', 'http.port', 'authrpc.port'],
  engine: ['datadir', 'http', 'http.port', 'authrpc.addr', 'authrpc.port', 'authrpc.jwtsecret'],
  replicaNode: ['l1', 'l1.beacon', 'l2', 'l2.jwt-secret', 'rollup.config', 'rollup.l1-chain-config', 'rpc.port'],
  sequencerNode: [
    'l1',
    'l1.beacon',
    'l2',
    'l2.jwt-secret',
    'rollup.config',
    'rollup.l1-chain-config',
    'rpc.port',
    'sequencer.enabled',
    'p2p.sequencer.key',
  ],
  batcher: ['l1-eth-rpc', 'l2-eth-rpc', 'rollup-rpc', 'private-key', 'data-availability-type'],
};

const PROGRAM_OF: Readonly<Record<Role, ProgramSpec>> = {
  l1: EXEC_PROGRAM,
  engine: EXEC_PROGRAM,
  replicaNode: NODE_PROGRAM,
  sequencerNode: NODE_PROGRAM,
  batcher: BATCHER_PROGRAM,
};

/** The flags of `names` that `program` lacks or has not built. */
export function unbuiltFlags(program: ProgramSpec, names: readonly string[]): string[] {
  return names.filter((n) => {
    const f = program.flags.find((x) => x.name === n);
    return f === undefined || !f.implemented;
  });
}

export type Program = 'exec' | 'node' | 'batcher';
const PROGRAMS: Readonly<Record<Program, ProgramSpec>> = {
  exec: EXEC_PROGRAM,
  node: NODE_PROGRAM,
  batcher: BATCHER_PROGRAM,
};

export interface Capabilities {
  /** The unbuilt flags that keep `role` from starting (empty: it can start). */
  missing(role: Role): readonly string[];
  /** Whether an optional flag may be passed (the program would refuse an unbuilt one). */
  built(program: Program, flag: string): boolean;
}

export function detectCapabilities(): Capabilities {
  return {
    missing: (role) => unbuiltFlags(PROGRAM_OF[role], ROLE_FLAGS[role]),
    built: (program, flag) => unbuiltFlags(PROGRAMS[program], [flag]).length === 0,
  };
}

/** Everything built: for tests with stand-in programs. */
export const ALL_CAPABLE: Capabilities = { missing: () => [], built: () => true };

/** `--flag value` pairs (value undefined: a bare boolean flag) of which only the built ones are kept. */
export function builtArgs(caps: Capabilities, program: Program, pairs: ReadonlyArray<[string, string?]>): string[] {
  const out: string[] = [];
  for (const [flag, value] of pairs) {
    if (!caps.built(program, flag)) continue;
    out.push(value === undefined ? `--${flag}` : `--${flag}=${value}`);
  }
  return out;
}
