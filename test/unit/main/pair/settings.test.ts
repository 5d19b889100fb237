// tern-pair's settings: each side parsed by its own flag table, errors prefixed with the side, and what makes no
// sense in one process refused (tern-node's engine flags, from the command line or the environment; tern-exec's
// sub-commands and --dev).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/main/common/errors.js';
import { ENGINE_ONLY_NODE_FLAGS, parsePairSettings } from '../../../../src/main/pair/settings.js';

const NODE = ['--l1=http://127.0.0.1:8545', '--rollup.config=rollup.json'];
const EXEC = ['--datadir=/tmp/pair-exec', '--http', '--http.port=9545'];

function error(argv: string[], env: Record<string, string> = {}): string {
  try {
    parsePairSettings(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('tern-pair settings', () => {
  it('parses each half with its own program: tern-node before --, tern-exec after', () => {
    const r = parsePairSettings([...NODE, '--', ...EXEC], {});
    if (r.kind !== 'run') throw new Error(`unexpected ${r.kind}`);
    expect(r.node.program.program).toBe('tern-node');
    expect(r.node.get('rollup.config')).toBe('rollup.json');
    expect(r.exec.program.program).toBe('tern-exec');
    expect(r.exec.get('datadir')).toBe('/tmp/pair-exec');
    expect(r.exec.get('http.port')).toBe(9545);
    // Each side reads its own environment variables.
    const e = parsePairSettings(NODE, { TERN_EXEC_HTTP_PORT: '7000', TERN_NODE_RPC_PORT: '7001' });
    if (e.kind !== 'run') throw new Error(`unexpected ${e.kind}`);
    expect(e.exec.get('http.port')).toBe(7000);
    expect(e.node.get('rpc.port')).toBe(7001);
  });

  it('answers --help and --version on either side', () => {
    expect(parsePairSettings(['--help'], {})).toEqual({ kind: 'help' });
    expect(parsePairSettings(['-h'], {})).toEqual({ kind: 'help' });
    expect(parsePairSettings([...NODE, '--', '--help'], {})).toEqual({ kind: 'help' });
    expect(parsePairSettings(['--version'], {})).toEqual({ kind: 'version' });
    // --help wins over the refusals below.
    expect(parsePairSettings(['--l2=http://x', '--help'], {})).toEqual({ kind: 'help' });
  });

  it('reports bad flags as the single programs do, prefixed with the side', () => {
    expect(error(['--bogus'])).toMatch(/^tern-node \(flags before --\): unknown flag --bogus/);
    expect(error(['--', '--bogus'])).toMatch(/^tern-exec \(flags after --\): unknown flag --bogus/);
    expect(error(['--rpc.port=notaport'])).toMatch(/^tern-node \(flags before --\): invalid value "notaport"/);
    expect(error(['--', '--http.port=x'])).toMatch(
      /^tern-exec \(flags after --\): invalid value "x" for flag --http.port/,
    );
    expect(error([], { TERN_EXEC_HTTP_PORT: 'x' })).toMatch(/^tern-exec .*environment variable TERN_EXEC_HTTP_PORT/);
  });

  it('says where a flag of the other program belongs', () => {
    expect(error(['--datadir=d'])).toMatch(/unknown flag --datadir; --datadir is a tern-exec flag: put it after --$/);
    expect(error(['--', '--rollup.config=r.json'])).toMatch(
      /unknown flag --rollup.config; --rollup.config is a tern-node flag: put it before --$/,
    );
  });

  it('refuses the engine flags of tern-node: the engine is in-process', () => {
    expect(ENGINE_ONLY_NODE_FLAGS).toEqual(['l2', 'l2.jwt-secret', 'l2.enginekind', 'l2.engine-rpc-timeout']);
    const one = error([...NODE, '--l2=http://127.0.0.1:8551']);
    expect(one).toMatch(/^tern-node \(flags before --\): --l2 cannot be used: the engine is in-process/);
    expect(one).toMatch(/remove it$/);
    const two = error([...NODE, '--l2=http://127.0.0.1:8551', '--l2.jwt-secret=jwt.txt']);
    expect(two).toMatch(/--l2, --l2.jwt-secret cannot be used: the engine is in-process.*remove them$/);
    expect(error([...NODE, '--l2.enginekind=reth'])).toMatch(/--l2.enginekind cannot be used/);
    expect(error([...NODE, '--l2.engine-rpc-timeout=5s'])).toMatch(/--l2.engine-rpc-timeout cannot be used/);
    // Also from the environment, which is named.
    expect(error(NODE, { TERN_NODE_L2_JWT_SECRET: 'jwt.txt' })).toMatch(
      /--l2.jwt-secret \(from \$TERN_NODE_L2_JWT_SECRET\) cannot be used: the engine is in-process/,
    );
  });

  it('refuses tern-exec sub-commands and --dev', () => {
    expect(error([...NODE, '--', 'init', 'genesis.json'])).toMatch(
      /^tern-exec \(flags after --\): tern-pair runs the tern-exec node, not its init command: run `tern-exec init`/,
    );
    expect(error([...NODE, '--', 'dumpconfig'])).toMatch(/not its dumpconfig command/);
    expect(error([...NODE, '--', '--dev'])).toMatch(/^tern-exec \(flags after --\): --dev makes tern-exec a layer-1/);
  });
});
