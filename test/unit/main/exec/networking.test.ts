// The networking flags tern-exec accepts while it has no execution-layer P2P: the seed's "Minimum" profile and
// geth's `--nodiscover --maxpeers 0` start and are logged as what they mean; flags that ask for networking tern
// does not have stay refused.
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import { execOptions } from '../../../../src/main/cli/execOptions.js';
import { parseSettings, unsupportedSettings } from '../../../../src/main/cli/parse.js';
import { networkingNote } from '../../../../src/main/exec/networking.js';

const parse = (argv: string[]) => parseSettings(EXEC_PROGRAM, { argv, env: {} });

describe('networking flags without execution-layer P2P', () => {
  it("accept the seed's Minimum profile (--syncmode=full --maxpeers=50)", () => {
    const s = parse([
      '--datadir=/tmp/x',
      '--http',
      '--http.addr=127.0.0.1',
      '--http.port=8545',
      '--http.api=eth,net,web3',
      '--authrpc.addr=127.0.0.1',
      '--authrpc.port=8551',
      '--authrpc.jwtsecret=/tmp/x/jwt.hex',
      '--stack-network=op-sepolia',
      '--syncmode=full',
      '--maxpeers=50',
      '--rollup.disabletxpoolgossip',
    ]);
    expect(unsupportedSettings(s)).toEqual([]);
    const note = networkingNote(execOptions(s).networking);
    expect(note.message).toMatch(/no peers/);
    expect(note.fields).toMatchObject({ maxpeers: 50, nodiscover: false, syncmode: 'full' });
  });

  it("accept geth's --nodiscover --maxpeers 0 and say what they mean", () => {
    const s = parse(['--nodiscover', '--maxpeers', '0']);
    expect(unsupportedSettings(s)).toEqual([]);
    expect(networkingNote(execOptions(s).networking).fields).toMatchObject({ maxpeers: 0, nodiscover: true });
    expect(networkingNote(execOptions(parse([])).networking).fields.syncmode).toMatch(/^snap \(snap sync is not built/);
  });

  it('keep refusing flags that ask for networking tern does not have', () => {
    expect(unsupportedSettings(parse([`--bootnodes=enode://${'ab'.repeat(64)}@1.2.3.4:30303`]))).toEqual([
      '--bootnodes',
    ]);
    expect(unsupportedSettings(parse(['--port=30304']))).toEqual(['--port']);
    expect(unsupportedSettings(parse(['--nodiscover', '--maxpeers=0', '--nat=none']))).toEqual(['--nat']);
  });
});
