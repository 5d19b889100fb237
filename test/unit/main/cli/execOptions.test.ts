// tern-exec's flags as typed options: the rules between flags (paths in the data directory, --dev's network id and
// data directory, the keystore's default place) and the modules' defaults when no flag is given.
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import { execNodeOptions, execOptions } from '../../../../src/main/cli/execOptions.js';
import { parseSettings } from '../../../../src/main/cli/parse.js';
import { UsageError } from '../../../../src/main/common/errors.js';
import { DEV_CHAIN_ID } from '../../../../src/main/exec/dev/genesis.js';
import { rollupDefaults } from '../../../../src/main/exec/rollup/options.js';
import { gasPriceOracleDefaults } from '../../../../src/main/exec/rpc/gasPrice.js';
import { sendTxDefaults } from '../../../../src/main/exec/rpc/sendTx.js';
import { txPoolDefaults } from '../../../../src/main/exec/txpool/options.js';

const settings = (argv: string[]) => parseSettings(EXEC_PROGRAM, { argv, env: {} });
const options = (argv: string[]) => execOptions(settings(argv));

describe('execOptions', () => {
  it('runs a node without flags on the modules’ own defaults', () => {
    const node = execNodeOptions(settings(['--datadir', '/data']));
    const { locals, journal, blobDataDir, evictionIntervalMs, ...poolFlags } = txPoolDefaults;
    expect(node.txpool).toMatchObject(poolFlags);
    expect(node.txpool?.journal).toBe('/data/transactions.rlp');
    expect(node.rollup).toEqual(rollupDefaults);
    expect(node.sendTx).toEqual(sendTxDefaults);
    const { maxHeaderHistory, maxBlockHistory, startPrice, ...gpoFlags } = gasPriceOracleDefaults;
    expect(node.backend.gpo).toEqual(gpoFlags);
  });

  it('resolves the keystore, the database share and the sub-commands’ arguments', () => {
    const o = options(['--datadir', '/data', '--cache', '1000', '--fdlimit', '64', 'export', 'out.rlp', '1', '9']);
    expect(o.command).toBe('export');
    expect(o.args).toEqual(['out.rlp', '1', '9']);
    expect(o.accounts).toEqual({ keystoreDir: '/data/keystore', lightKdf: false });
    expect(o.database).toEqual({
      datadir: '/data',
      ancient: undefined,
      era: '/data/chaindata/ancient/chain/era',
      engine: undefined,
      cacheMB: 500,
      fdLimit: 64,
    });
    // --datadir.era: relative to the datadir; its default follows --datadir.ancient.
    expect(options(['--datadir', '/data', '--datadir.era', 'eras']).database.era).toBe('/data/eras');
    expect(options(['--datadir', '/data', '--datadir.ancient', '/anc']).database.era).toBe('/anc/chain/era');
    const k = options(['--datadir', '/data', '--keystore', '/keys', '--password', '/pw', '--lightkdf']);
    expect(k.accounts).toEqual({ keystoreDir: '/keys', lightKdf: true, passwordFile: '/pw' });
    expect(k.command).toBeUndefined();
    expect(k.dev).toBeUndefined();
  });

  it('gives --dev the dev chain id and the node options over the directory it runs in', () => {
    const o = options(['--dev', '--dev.period', '3']);
    expect(o.dev?.persistent).toBe(false);
    expect(o.dev?.period).toBe(3);
    const node = o.dev?.nodeAt('/tmp/dev-x');
    expect(node?.backend.networkId).toBe(BigInt(DEV_CHAIN_ID));
    expect(node?.ipcPath).toBe('/tmp/dev-x/tern-exec.ipc');
    expect(node?.auth?.jwtSecretPath).toBe('/tmp/dev-x/jwtsecret');
    expect(node?.txpool?.journal).toBe('/tmp/dev-x/transactions.rlp');
    expect(node?.exitWhenSynced).toBe(false);
    const given = options(['--dev', '--networkid', '9', '--datadir', '/d']);
    expect(given.dev?.persistent).toBe(true);
    expect(given.dev?.nodeAt('/d').backend.networkId).toBe(9n);
    // ethstats reports the --networkid as given.
    expect(given.observability.networkId).toBe(9);
  });

  it('gives attach and console the IPC socket, the headers and the statement', () => {
    const o = options(['--datadir', '/data', '--ipcpath', 'x.ipc', '--header', 'A: b', '--exec', '1+1', 'attach']);
    expect(o.console).toEqual({
      repl: { jspath: '.', preload: [], historyFile: '/data/history' },
      statement: '1+1',
      headers: { A: 'b' },
      ipcEndpoint: '/data/x.ipc',
      ipcDisabled: false,
    });
  });

  it('maps the profiling and metrics flags', () => {
    const o = options(['--pprof', '--pprof.port', '7000', '--pprof.blockprofilerate', '5000000', '--metrics.addr', '']);
    expect(o.observability.pprof).toMatchObject({ port: 7000, blockResolutionMs: 5 });
    expect(o.observability.metricsAddr).toBeUndefined();
    expect(options([]).observability.pprof).toBeUndefined();
    expect(options(['--cache.noprefetch']).import.noPrefetch).toBe(true);
  });

  it('refuses what Node cannot do before anything starts', () => {
    expect(() => options(['--go-execution-trace', 't.out'])).toThrow(UsageError);
    expect(() => options(['--metrics.tsdb', '--metrics.tsdbv2'])).toThrow(/mutually exclusive/);
  });
});
