// The networking flags: the seed's "Minimum" profile and geth's `--nodiscover --maxpeers 0` are accepted and
// logged as what they mean; section 2.11's flags are accepted now that the network is built.
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import { execOptions } from '../../../../src/main/cli/execOptions.js';
import { parseSettings, unsupportedSettings } from '../../../../src/main/cli/parse.js';
import { networkingNote } from '../../../../src/main/exec/networking.js';
import { parseEnode } from '../../../../src/main/exec/p2p/enode.js';

const parse = (argv: string[]) => parseSettings(EXEC_PROGRAM, { argv, env: {} });

describe('networking flags', () => {
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
    expect(note.message).toBe('Networking settings');
    expect(execOptions(s).node.p2p).toMatchObject({ enabled: true, maxPeers: 50, txGossip: false });
    expect(note.fields).toMatchObject({ maxpeers: 50, nodiscover: false, syncmode: 'full' });
  });

  it("accept geth's --nodiscover --maxpeers 0 and say what they mean", () => {
    const s = parse(['--nodiscover', '--maxpeers', '0']);
    expect(unsupportedSettings(s)).toEqual([]);
    expect(networkingNote(execOptions(s).networking).fields).toMatchObject({ maxpeers: 0, nodiscover: true });
    expect(networkingNote(execOptions(s).networking).message).toMatch(/no peers/);
    expect(execOptions(s).node.p2p).toMatchObject({ enabled: false, discv4: false, discv5: false });
    expect(networkingNote(execOptions(parse([])).networking).fields.syncmode).toMatch(/^snap \(snap sync is not built/);
  });

  it('accept the section 2.11 flags and turn them into the network options', () => {
    const enode = `enode://${'ab'.repeat(64)}@1.2.3.4:30303`;
    const s = parse([
      `--bootnodes=${enode}`,
      '--port=30304',
      '--discovery.v4',
      '--nat=extip:5.6.7.8',
      '--netrestrict=10.0.0.0/8',
      `--nodekeyhex=0x${'11'.repeat(32)}`,
      '--identity=replica-1',
      '--maxpendpeers=7',
      `--eth.requiredblocks=5=0x${'cd'.repeat(32)}`,
    ]);
    expect(unsupportedSettings(s)).toEqual([]);
    expect(execOptions(s).node.p2p).toMatchObject({
      bootnodes: [enode],
      port: 30304,
      discoveryPort: 30304,
      discv4: true,
      nat: 'extip:5.6.7.8',
      netRestrict: ['10.0.0.0/8'],
      identity: 'replica-1',
      maxPendingPeers: 7,
      requiredBlocks: [[5n, `0x${'cd'.repeat(32)}`]],
    });
    expect(execOptions(parse(['--port=1', '--discovery.port=2'])).node.p2p?.discoveryPort).toBe(2);
    expect(execOptions(parse(['--mainnet'])).node.p2p?.bootnodes.length).toBeGreaterThan(0);
  });

  it("use op-geth's OP bootnodes for a bundled network unless --bootnodes is given", () => {
    const boot = (argv: string[]) => execOptions(parse(argv)).node.p2p?.bootnodes ?? [];
    const sepolia = boot(['--stack-network=op-sepolia']);
    const mainnet = boot(['--stack-network=base-mainnet']);
    // op-geth's V5OPTestnetBootnodes (8) and V5OPBootnodes (11), the first OP Labs node of each.
    expect(sepolia).toHaveLength(8);
    expect(sepolia[0]).toMatch(/^enode:\/\/2bd2e657bb3c8eff.*@34\.65\.205\.244:30305$/);
    expect(mainnet).toHaveLength(11);
    expect(mainnet[0]).toMatch(/^enode:\/\/ca2774c3c4013258.*@34\.65\.175\.185:30305$/);
    for (const url of [...sepolia, ...mainnet]) expect(() => parseEnode(url)).not.toThrow();
    expect(boot(['--stack-network=base-mainnet', `--bootnodes=enode://${'ab'.repeat(64)}@1.2.3.4:30303`])).toEqual([
      `enode://${'ab'.repeat(64)}@1.2.3.4:30303`,
    ]);
    expect(boot(['--stack-network=base-mainnet', '--bootnodes='])).toEqual([]);
    expect(boot([])).toEqual([]);
  });
});
