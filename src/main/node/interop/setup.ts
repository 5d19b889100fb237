// Interop from tern-node's options: the dependency set (--interop.dependency-set) and, when --interop.rpc.addr is
// set, managed mode: the supervisor-facing WebSocket-only RPC server on --interop.rpc.addr:--interop.rpc.port,
// authenticated with the JWT secret of --interop.jwt-secret (a new one is written when the file is absent or
// empty, mode 0600), serving the interop namespace over the node's engine, engine controller and driver.
import { readFileSync, unlinkSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { HttpRpcServer, type RpcServerAddress } from '../../common/rpc/http.js';
import { RpcRegistry } from '../../common/rpc/registry.js';
import { obtainHex32File } from '../../common/secretFile.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { DerivationL1Event } from '../driver/driver.js';
import type { EngineController } from '../engine/engineController.js';
import type { Engine } from '../engine/interface.js';
import { registerInteropApi } from './api.js';
import { type DependencySet, dependencySetFromRegistry, loadDependencySet } from './dependencySet.js';
import { type ManagedL1, ManagedNode } from './managedNode.js';

const WHAT = 'interop JWT secret';

/** Reads the interop JWT secret, writing a new one (mode 0600) when the file is absent or empty. */
export function obtainInteropJwtSecret(path: string, logger: Logger): Uint8Array {
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = undefined; // absent (or unreadable: obtainHex32File reports that)
  }
  if (text !== undefined && text.trim() === '') unlinkSync(path);
  const { secret, created } = obtainHex32File(path, WHAT);
  if (created) {
    logger.warn('Generated a new interop JWT secret; configure the supervisor with it', { path });
  } else {
    logger.info('Loaded interop JWT secret', { path });
  }
  return secret;
}

/** --interop.dependency-set, --interop.rpc.addr (empty: no interop server), --interop.rpc.port, --interop.jwt-secret. */
export interface InteropOptions {
  dependencySetPath: string | undefined;
  rpcAddr: string;
  rpcPort: number;
  jwtSecretPath: string;
}

export interface InteropContext {
  options: InteropOptions;
  config: RollupConfig;
  logger: Logger;
  lifecycle: Lifecycle;
  engine: Engine;
  controller: EngineController;
  driver: {
    runExclusive<T>(fn: () => Promise<T>): Promise<T>;
    requestReset(): void;
    /** Derivation resets, with their reason (sent to the supervisor as `reset` events). */
    onReset?(listener: (reason: string) => void): () => void;
    /** Derivation's origin moves and L1 exhaustion (derivationOriginUpdate and exhaustL1 events). */
    onDerivationL1?(listener: (e: DerivationL1Event) => void): () => void;
    /** Ends the driver's idle wait (a provided L1 block is ready). */
    wake?(): void;
  };
  l1: ManagedL1;
  /** The L1 block derivation is reading (the source of newly derived blocks). */
  derivationOrigin(): L1BlockRef | undefined;
  blockReceipts?: ((hash: string) => Promise<unknown>) | undefined;
  /** Derivation's managed L1 traversal (pipeline.traversal with managedL1): where provideL1 hands blocks. */
  traversal?: { provideNextL1(next: L1BlockRef): void } | undefined;
}

export interface Interop {
  dependencySet: DependencySet | undefined;
  managed: ManagedNode | undefined;
  rpcAddress: RpcServerAddress | undefined;
}

/**
 * The dependency set alone (read early, so a bad file stops startup before anything connects): the
 * --interop.dependency-set file, else the registry's [interop] section of the --network chain when it has one (as
 * op-node does for a predefined network), else none.
 */
export function readDependencySet(
  opts: InteropOptions,
  logger: Logger,
  registry?: { network: string; dependencies: Readonly<Record<string, unknown>> | undefined },
): DependencySet | undefined {
  const path = opts.dependencySetPath?.trim();
  if (path === undefined || path === '') {
    if (registry?.dependencies === undefined) return undefined;
    const ds = dependencySetFromRegistry(registry.network, registry.dependencies);
    logger.info('Using the registry dependency set of the network', {
      network: registry.network,
      chains: ds.chains().map(String).join(','),
    });
    return ds;
  }
  const ds = loadDependencySet(path);
  logger.info('Loaded interop dependency set', {
    path,
    chains: ds.chains().map(String).join(','),
    messageExpiryWindow: ds.messageExpiryWindow().toString(),
  });
  return ds;
}

/** Starts managed mode when --interop.rpc.addr is set; undefined otherwise. */
export async function startInterop(ctx: InteropContext, dependencySet?: DependencySet): Promise<Interop> {
  const { options, logger, lifecycle } = ctx;
  const host = options.rpcAddr.trim();
  if (host === '') return { dependencySet, managed: undefined, rpcAddress: undefined };
  const jwtPath = options.jwtSecretPath.trim();
  if (jwtPath === '') {
    throw new UsageError(
      '--interop.rpc.addr needs --interop.jwt-secret: the file the supervisor shares the secret with',
    );
  }
  const jwtSecret = obtainInteropJwtSecret(jwtPath, logger);
  if (dependencySet !== undefined && !dependencySet.hasChain(ctx.config.l2ChainId)) {
    logger.warn('This chain is not in the interop dependency set', { chainId: ctx.config.l2ChainId.toString() });
  }

  const managed = new ManagedNode({
    config: ctx.config,
    engine: ctx.engine,
    controller: ctx.controller,
    driver: ctx.driver,
    l1: ctx.l1,
    logger,
    blockReceipts: ctx.blockReceipts,
    provideL1:
      ctx.traversal === undefined
        ? undefined
        : (next) => {
            ctx.traversal?.provideNextL1(next);
            ctx.driver.wake?.();
          },
  });
  const unlisten = ctx.controller.onHeadsChanged((prev, next) => {
    managed.onHeads(prev, next);
    if (prev !== undefined && prev.safe.hash !== next.safe.hash && next.safe.number > prev.safe.number) {
      const origin = ctx.derivationOrigin();
      if (origin !== undefined) managed.onDerived(next.safe, origin);
    }
  });
  const unlistenReset = ctx.driver.onReset?.((reason) => managed.onReset(reason));
  const unlistenL1 = ctx.driver.onDerivationL1?.((e) =>
    e.kind === 'exhausted' ? managed.onExhaustedL1(e.origin, e.lastL2) : managed.onOriginAdvanced(e.origin, e.lastL2),
  );
  lifecycle.onStop('interop events', async () => {
    unlisten();
    unlistenReset?.();
    unlistenL1?.();
  });

  const registry = new RpcRegistry();
  registerInteropApi(registry, managed);
  const server = new HttpRpcServer(
    {
      name: 'interop',
      host,
      port: options.rpcPort,
      // WebSocket only, as op-node's interop server; any origin (the JWT is the gate).
      ws: { apis: ['interop'], origins: ['*'], prefix: '/' },
      jwtSecret,
      authenticated: true,
    },
    { registry, logger, signal: lifecycle.signal },
  );
  lifecycle.onStop('interop rpc server', () => server.stop());
  const rpcAddress = await server.start();
  logger.info('Started interop RPC', { endpoint: rpcAddress.wsUrl });
  return { dependencySet, managed, rpcAddress };
}
