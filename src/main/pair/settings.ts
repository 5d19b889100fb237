// tern-pair's settings: each half of the command line is parsed by its own program's flag table (the same
// validation, environment variables and — for tern-exec — --config TOML file as the single programs), and every
// error names the side it came from. What makes no sense in one process is refused, never silently ignored: the
// engine flags of tern-node (--l2 and friends: the engine is tern-exec in this process), tern-exec's sub-commands
// and --dev (a layer-1 chain has no rollup node).
import { EXEC_PROGRAM } from '../cli/execFlags.js';
import type { ProgramSpec } from '../cli/flag.js';
import { envVarName } from '../cli/flag.js';
import { NODE_PROGRAM } from '../cli/nodeFlags.js';
import { assertSupported, parseSettings, type Settings } from '../cli/parse.js';
import { loadTomlConfig } from '../cli/toml.js';
import { TernError, UsageError } from '../common/errors.js';
import { SIDE_LABEL, type Side, splitPairArgs } from './args.js';

/** tern-node's flags for an engine over HTTP: with the engine in this process they have nothing to configure. */
export const ENGINE_ONLY_NODE_FLAGS = ['l2', 'l2.jwt-secret', 'l2.enginekind', 'l2.engine-rpc-timeout'] as const;

export type PairParse =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly node: Settings; readonly exec: Settings };

const PROGRAM: Readonly<Record<Side, ProgramSpec>> = { node: NODE_PROGRAM, exec: EXEC_PROGRAM };
const OTHER: Readonly<Record<Side, Side>> = { node: 'exec', exec: 'node' };

/** A usage error of one side, its message prefixed with the side. */
export function sideError(side: Side, message: string): UsageError {
  return new UsageError(`${SIDE_LABEL[side]}: ${message}`);
}

/** For an unknown flag that the other program knows: where it belongs. */
function otherSideHint(side: Side, message: string): string {
  const m = /^unknown flag --?([^\s=]+)/.exec(message);
  if (m === null) return '';
  const name = m[1] as string;
  const other = OTHER[side];
  const known = PROGRAM[other].flags.some((f) => f.name === name || (f.aliases ?? []).includes(name));
  if (!known) return '';
  return other === 'exec'
    ? `; --${name} is a tern-exec flag: put it after --`
    : `; --${name} is a tern-node flag: put it before --`;
}

function parseSide(side: Side, argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Settings {
  try {
    return parseSettings(PROGRAM[side], {
      argv,
      env,
      ...(side === 'exec' ? { loadToml: (path: string) => loadTomlConfig(EXEC_PROGRAM, path) } : {}),
    });
  } catch (err) {
    if (err instanceof TernError && err.code === 'USAGE') {
      throw sideError(side, `${err.message}${otherSideHint(side, err.message)}`);
    }
    throw err;
  }
}

/** The engine flags given to tern-node (on the command line or in its environment): refused, with the reason. */
export function refuseEngineFlags(node: Settings): void {
  const given = ENGINE_ONLY_NODE_FLAGS.filter((name) => node.source(name) !== 'default').map((name) =>
    node.source(name) === 'env' ? `--${name} (from $${envVarName(NODE_PROGRAM.envPrefix, name)})` : `--${name}`,
  );
  if (given.length === 0) return;
  throw sideError(
    'node',
    `${given.join(', ')} cannot be used: the engine is in-process (tern-exec runs in this process and tern-node ` +
      `calls its Engine API handlers directly, with no URL and no JWT); remove ${given.length > 1 ? 'them' : 'it'}`,
  );
}

/** tern-exec's sub-commands and --dev are for tern-exec on its own. */
export function refuseExecModes(exec: Settings): void {
  const sub = exec.subcommand?.name;
  if (sub !== undefined) {
    throw sideError(
      'exec',
      `tern-pair runs the tern-exec node, not its ${sub} command: run \`tern-exec ${sub}\` on its own`,
    );
  }
  if (exec.get<boolean>('dev')) {
    throw sideError(
      'exec',
      '--dev makes tern-exec a layer-1 development chain, which has no rollup node: run `tern-exec --dev` on its own',
    );
  }
}

/** Parses and checks both halves; throws UsageError (prefixed with the side) on any problem. */
export function parsePairSettings(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): PairParse {
  const args = splitPairArgs(argv);
  const node = parseSide('node', args.node, env);
  const exec = parseSide('exec', args.exec, env);
  if (node.get<boolean>('help') || exec.get<boolean>('help')) return { kind: 'help' };
  if (node.get<boolean>('version') || exec.get<boolean>('version')) return { kind: 'version' };
  refuseEngineFlags(node);
  refuseExecModes(exec);
  for (const [side, settings] of [
    ['node', node],
    ['exec', exec],
  ] as const) {
    try {
      assertSupported(settings);
    } catch (err) {
      if (err instanceof TernError && err.code === 'USAGE') throw sideError(side, err.message);
      throw err;
    }
  }
  return { kind: 'run', node, exec };
}
