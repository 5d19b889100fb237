// tern-node's flags as typed options: the replica's parts, the overrides that are set, the beacon header, the JWT
// secret's default place, and sequencing off by default.
import { describe, expect, it } from 'vitest';
import { NODE_PROGRAM } from '../../../../src/main/cli/nodeFlags.js';
import { DEFAULT_JWT_SECRET_PATH, nodeOptions } from '../../../../src/main/cli/nodeOptions.js';
import { parseSettings } from '../../../../src/main/cli/parse.js';
import { sequencingDefaults } from '../../../../src/main/node/sequencer/setup.js';

const options = (argv: string[]) => nodeOptions(parseSettings(NODE_PROGRAM, { argv, env: {} }));

describe('nodeOptions', () => {
  it('maps the replica flags', () => {
    const o = options([
      '--l1=http://l1:8545',
      '--l2=http://a:8551,http://b:8551',
      '--l1.beacon=http://beacon:5052',
      '--l1.beacon-header=X-Key: abc',
      '--override.fjord=5',
      '--override.granite=0',
      '--network=op-sepolia',
      '--l1.trustrpc',
      '--rpc.port=0',
    ]);
    const r = o.replica;
    expect(r.rollupConfig).toEqual({ path: undefined, network: 'op-sepolia', overrides: { fjord: 5 } });
    expect(r.engine.urls).toEqual(['http://a:8551', 'http://b:8551']);
    expect(r.beacon).toMatchObject({ url: 'http://beacon:5052', header: 'X-Key: abc', fallbacks: [] });
    expect(r.l1).toMatchObject({ url: 'http://l1:8545', trustRpc: true });
    expect(r.rpc.port).toBe(0);
  });

  it('puts the JWT secret in the working directory unless --l2.jwt-secret names one', () => {
    expect(options([]).jwtSecretPath).toBe(DEFAULT_JWT_SECRET_PATH);
    expect(options(['--l2.jwt-secret= /s/jwt.hex ']).jwtSecretPath).toBe('/s/jwt.hex');
  });

  it('leaves sequencing off without its flags, and turns the conductor on only with --conductor.enabled', () => {
    expect(options([]).replica.sequencing).toEqual(sequencingDefaults);
    const s = options(['--sequencer.enabled', '--conductor.enabled', '--conductor.rpc=http://c:1']).replica.sequencing;
    expect(s.enabled).toBe(true);
    expect(s.conductor).toEqual({ url: 'http://c:1', timeoutMs: 1000 });
  });
});
