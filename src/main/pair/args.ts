// tern-pair's command line: `tern-pair [tern-node flags] -- [tern-exec flags]`. The first bare `--` splits it; a
// flag value that is itself `--` must be written with `=` (`--flag=--`). Without a `--` every argument is tern-node's
// and tern-exec runs with its defaults (and its environment variables and --config file, if any).

/** The two halves of tern-pair's arguments. */
export interface PairArgs {
  readonly node: readonly string[];
  readonly exec: readonly string[];
}

/** Splits at the first bare `--`: tern-node's flags before it, tern-exec's after it. */
export function splitPairArgs(argv: readonly string[]): PairArgs {
  const at = argv.indexOf('--');
  if (at < 0) return { node: [...argv], exec: [] };
  return { node: argv.slice(0, at), exec: argv.slice(at + 1) };
}

export type Side = 'node' | 'exec';

/** How each side is named in messages. */
export const SIDE_LABEL: Readonly<Record<Side, string>> = {
  node: 'tern-node (flags before --)',
  exec: 'tern-exec (flags after --)',
};
