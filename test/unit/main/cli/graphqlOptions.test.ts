// --graphql, --graphql.corsdomain and --graphql.vhosts from the command line and the environment; --graphql
// without --http refused (the seed: "GraphQL cannot start").
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import { execNodeOptions, execOptions, graphqlOptions } from '../../../../src/main/cli/execOptions.js';
import { assertSupported, parseSettings } from '../../../../src/main/cli/parse.js';
import { UsageError } from '../../../../src/main/common/errors.js';

const settings = (argv: string[], env: Record<string, string> = {}) => {
  const s = parseSettings(EXEC_PROGRAM, { argv, env });
  assertSupported(s);
  return s;
};

describe('GraphQL options', () => {
  it('is off by default', () => {
    expect(graphqlOptions(settings(['--http']))).toBeUndefined();
    expect(execNodeOptions(settings(['--http'])).graphql).toBeUndefined();
  });

  it("takes geth's defaults and the flags", () => {
    expect(graphqlOptions(settings(['--http', '--graphql']))).toEqual({
      corsDomains: undefined,
      vhosts: ['localhost'],
    });
    expect(
      graphqlOptions(
        settings([
          '--http',
          '--graphql',
          '--graphql.corsdomain=https://a.example,https://b.example',
          '--graphql.vhosts=*',
        ]),
      ),
    ).toEqual({ corsDomains: ['https://a.example', 'https://b.example'], vhosts: ['*'] });
    expect(graphqlOptions(settings([], { TERN_EXEC_HTTP: 'true', TERN_EXEC_GRAPHQL: 'true' }))).toBeDefined();
  });

  it('refuses --graphql without --http', () => {
    expect(() => graphqlOptions(settings(['--graphql']))).toThrow(UsageError);
    expect(() => graphqlOptions(settings(['--graphql']))).toThrow(/GraphQL cannot start/);
    expect(() => execOptions(settings(['--graphql', '--ws']))).toThrow(/--http/);
  });

  it('leaves the sub-commands alone, as geth checks it when the node starts', () => {
    const init = settings(['--graphql', 'init', 'genesis.json']);
    expect(init.subcommand?.name).toBe('init');
    expect(() => execOptions(init)).not.toThrow();
    expect(execOptions(init).node.graphql).toBeUndefined();
  });
});
