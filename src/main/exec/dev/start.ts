// `tern-exec --dev`: a self-contained development chain. Without --datadir everything is ephemeral: the chain lives
// in memory, the developer key is made in memory, and the files a node writes (IPC socket, JWT secret, pool
// journal) go to a temporary directory removed at exit. With --datadir the chain, keystore and files persist and
// a restart continues the same chain. The beacon API for the chain's blobs gets its own listener.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { addressOfKey, newPrivateKey } from '../accounts/keystore.js';
import { AccountManager, type AccountsOptions } from '../accounts/manager.js';
import { BlockBuilder } from '../chain/builder.js';
import { ChainStore } from '../chain/chainStore.js';
import { databaseAllocation, openChainDatabase } from '../cmd/database.js';
import { type Database, openDatabase } from '../db/open.js';
import type { ExecObservability } from '../metrics/observability.js';
import { type ExecNode, type ExecNodeOptions, startExecNode } from '../node.js';
import type { ExecContext } from '../options.js';
import { clientVersion } from '../rpc/api.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import { DevBeacon, type DevBlobSidecar } from './beacon.js';
import { DevBeaconServer } from './beaconServer.js';
import { DEV_CHAIN_ID, DEV_DEPOSIT_CONTRACT, devGenesis } from './genesis.js';
import { devNamespace } from './rpc.js';
import { DevSealer } from './sealer.js';
import { DevSidecarStore } from './sidecarStore.js';

/** --dev and its flags (cli/execOptions.ts). */
export interface DevOptions {
  /** --datadir was given: the chain, keystore and files persist there. */
  persistent: boolean;
  /** --keystore (default: <datadir>/keystore when persistent, none otherwise). */
  keystore: string | undefined;
  /** --dev.gaslimit */
  gasLimit: bigint;
  /** --dev.period, seconds; 0 seals on pending transactions. */
  period: number;
  /** --dev.beacon.addr / --dev.beacon.port */
  beacon: { host: string; port: number };
  /** The node's options over the data directory the chain runs in (a temporary one without --datadir). */
  nodeAt(datadir: string): ExecNodeOptions;
}

export interface DevNode {
  readonly node: ExecNode;
  readonly sealer: DevSealer;
  readonly beacon: DevBeacon;
  readonly beaconUrl: string;
  /** 0x-prefixed lower-case address of the developer account. */
  readonly developer: string;
}

/**
 * The developer account (geth's rule): the keystore's first account, unlocked with the first --password line; a
 * new key stored in the keystore (with that password, or an empty one) when there is none; with no keystore at
 * all (no --datadir, no --keystore) a key that lives only in memory.
 */
export function developerAccount(
  keystoreDir: string | undefined,
  accounts: Pick<AccountsOptions, 'lightKdf' | 'passwordFile'>,
  logger: Logger,
): { manager: AccountManager; address: string; key: Uint8Array } {
  const { passwordFile } = accounts;
  const manager = new AccountManager(
    {
      // No keystore: a directory name that does not exist lists no accounts.
      keystoreDir: keystoreDir ?? join(tmpdir(), `tern-dev-no-keystore-${process.pid}`),
      lightKdf: accounts.lightKdf ?? false,
      ...(passwordFile ? { passwordFile } : {}),
    },
    { logger: logger.child('accounts') },
  );
  if (keystoreDir === undefined) {
    const key = newPrivateKey();
    const address = hex(addressOfKey(key));
    manager.addUnlocked(address, key);
    return { manager, address, key };
  }
  manager.unlockWithPasswords();
  const first = manager.keystore.list()[0];
  if (first !== undefined) {
    // geth tries the empty password (the one a dev account is created with) when --password gives none.
    if (manager.passwords.length === 0) {
      try {
        manager.unlockEntry(first, '');
      } catch {
        // Reported below.
      }
    }
    if (!manager.isUnlocked(first.address))
      throw new UsageError(
        `the developer account ${first.address} (first in ${keystoreDir}) is locked: give its password with --password <file>`,
      );
    return { manager, address: first.address, key: manager.privateKey(first.address) };
  }
  const key = newPrivateKey();
  const entry = manager.keystore.add(manager.passwords[0] ?? '', key);
  manager.addUnlocked(entry.address, key);
  logger.info('Created the developer account in the keystore', { address: entry.address, path: entry.path });
  return { manager, address: entry.address, key };
}

export async function runDev(ctx: ExecContext, dev: DevOptions, observability?: ExecObservability): Promise<DevNode> {
  const { options, lifecycle } = ctx;
  const logger = ctx.log.logger.child('dev');
  const { persistent, period } = dev;
  let datadir = options.database.datadir;
  let db: Database;
  if (persistent) {
    db = await openChainDatabase(options.database, lifecycle, logger);
  } else {
    datadir = mkdtempSync(join(tmpdir(), 'tern-dev-'));
    lifecycle.onStop('dev temporary directory', () => rmSync(datadir, { recursive: true, force: true }));
    const cacheMB = databaseAllocation(options.database, logger, 'memory');
    db = await openDatabase({ engine: 'memory', cacheMB }, { logger });
    lifecycle.onStop('database', () => db.close());
  }
  const keystoreDir = dev.keystore ?? (persistent ? join(datadir, 'keystore') : undefined);
  const developer = developerAccount(keystoreDir, options.accounts, logger);

  const store = new ChainStore(db);
  if (store.genesisHash() === undefined) {
    const genesis = devGenesis({
      developer: developer.address,
      gasLimit: dev.gasLimit,
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
    });
    const { hash } = await store.initGenesis(genesis);
    logger.info('Created the development chain', { chainId: DEV_CHAIN_ID, genesis: hex(hash) });
  } else if (store.config().chainId !== BigInt(DEV_CHAIN_ID)) {
    logger.warn('The --datadir holds a chain that is not a dev chain; sealing on it anyway', {
      chainId: store.config().chainId,
    });
  }
  // Said at warn level so an operator sees it at any verbosity above errors; the key is the point of --dev.
  logger.warn('Developer account (pre-funded; its key is printed for development use only)', {
    address: developer.address,
    privateKey: hex(developer.key),
  });

  const genesisHeader = store.headerByNumber(0n);
  if (genesisHeader === undefined) throw new UsageError('the dev chain has no genesis block');
  // With a --datadir the sidecars of sealed blob transactions persist with the chain.
  const sidecars = persistent ? new DevSidecarStore(join(datadir, 'dev-blobs')) : undefined;
  const beacon = new DevBeacon({
    genesisTime: genesisHeader.timestamp,
    secondsPerSlot: period === 0 ? 1 : period,
    ...(sidecars ? { onSidecarsDropped: (b) => sidecars.delete(b.blockNumber, b.blockHash) } : {}),
  });
  rebuildBeacon(store, beacon, sidecars, logger);

  // The sealer moves the head through this thread's ChainStore: the executor stays on this thread with it.
  const node = await startExecNode(
    db,
    { ...dev.nodeAt(datadir), executor: 'inline' },
    {
      logger: ctx.log.logger.child('exec'),
      lifecycle,
      accounts: developer.manager,
      observability,
    },
  );

  const builder = await BlockBuilder.create(node.store, new InlineSenderRecovery(), {
    logger: logger.child('builder'),
    pool: node.txpool,
  });
  const sealer = new DevSealer({ period }, node.store, builder, node.txpool, beacon, {
    logger: logger.child('sealer'),
    sidecars,
  });
  // dev_reorg; offered where --http.api / --ws.api list `dev` (or list nothing), and over IPC.
  node.registry.registerNamespace('dev', devNamespace(sealer));

  const server = new DevBeaconServer(
    {
      host: dev.beacon.host,
      port: dev.beacon.port,
      version: clientVersion(),
      chainId: store.config().chainId,
      depositContract: DEV_DEPOSIT_CONTRACT,
    },
    beacon,
    { logger: logger.child('beacon') },
  );
  lifecycle.onStop('dev beacon API', () => server.stop());
  const beaconUrl = await server.start();
  logger.info('Beacon API listening', { url: beaconUrl, secondsPerSlot: beacon.secondsPerSlot });
  // Registered last, so it stops first: no block is sealed once listeners and the database are going away.
  lifecycle.onStop('dev sealer', () => sealer.stop());
  sealer.start();
  logger.info('Sealing blocks', { period: period === 0 ? 'on pending transactions' : `${period}s` });
  return { node, sealer, beacon, beaconUrl, developer: developer.address };
}

/**
 * The beacon blocks of the chain already in the database (a restart with --datadir), with the sidecars kept on
 * disk; the files of blocks no longer on the chain are deleted.
 */
export function rebuildBeacon(store: ChainStore, beacon: DevBeacon, sidecars?: DevSidecarStore, logger?: Logger): void {
  const head = store.head().number;
  if (sidecars) {
    const dropped = sidecars.prune((n, hashHex) => {
      const hash = n <= head ? store.canonicalHash(n) : undefined;
      return hash !== undefined && Buffer.from(hash).toString('hex') === hashHex;
    });
    if (dropped > 0) logger?.info('Deleted the blob sidecars of blocks no longer on the dev chain', { dropped });
  }
  let restored = 0;
  for (let n = 0n; n <= head; n++) {
    const hash = store.canonicalHash(n);
    const h = store.headerByNumber(n);
    if (hash === undefined || h === undefined) throw new UsageError(`the dev chain is missing block ${n}`);
    let kept: DevBlobSidecar[] | undefined;
    try {
      kept = sidecars?.get(n, hash);
    } catch (err) {
      logger?.warn('Blob sidecars of a dev block are unreadable; the beacon API will not serve them', {
        number: n,
        err: (err as Error).message,
      });
    }
    if (kept) restored += kept.length;
    try {
      beacon.add({ number: n, hash, timestamp: h.timestamp, stateRoot: h.stateRoot }, kept ?? []);
    } catch (err) {
      throw new UsageError(
        `block ${n} of the chain in --datadir is not on a ${beacon.secondsPerSlot}s slot: was it made with another --dev.period? (${(err as Error).message})`,
      );
    }
  }
  if (restored > 0) logger?.info('Restored blob sidecars of the dev chain', { blobs: restored });
}
