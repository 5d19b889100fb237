// The two programs' lifecycles in one process, linked so that they stop in order: tern-node first (its RPC,
// driver and engine client), then tern-exec (its listeners, then its database). Stopping tern-node — Ctrl-C,
// SIGTERM, a fatal derivation error — runs tern-exec's stop as tern-node's last hook but one (its logger closes
// last). When tern-exec stops on its own (--rollup.halt, --exitwhensynced), tern-node is stopped at once as well.
import { Lifecycle } from '../common/lifecycle.js';
import type { Logger } from '../common/logger/index.js';

/** tern-exec's own deadline (the Lifecycle default) plus tern-node's, within the devnet's 10 s grace period. */
export const PAIR_STOP_DEADLINE_MS = 9000;

export interface PairLifecycles {
  readonly node: Lifecycle;
  readonly exec: Lifecycle;
}

export function createPairLifecycles(deps: {
  nodeLogger: Logger;
  execLogger: Logger;
  /** Closes tern-node's log output; runs after tern-exec has stopped. */
  closeNodeLog: () => Promise<void> | void;
  /** Closes tern-exec's log output; tern-exec's last hook. */
  closeExecLog: () => Promise<void> | void;
  deadlineMs?: number;
}): PairLifecycles {
  const exec = new Lifecycle(deps.execLogger);
  exec.onStop('logger', deps.closeExecLog);
  const node = new Lifecycle(deps.nodeLogger, deps.deadlineMs ?? PAIR_STOP_DEADLINE_MS);
  node.onStop('logger', deps.closeNodeLog);
  // Registered before everything tern-node starts, so it runs after all of tern-node's hooks.
  node.onStop('tern-exec', () => exec.stop('tern-node stopped'));
  return { node, exec };
}

/**
 * When tern-exec begins stopping while tern-node is not stopping, stops tern-node too and then calls `onStopped`
 * (the process exits there). Returns a function that stops watching.
 */
export function followExecStop(pair: PairLifecycles, onStopped: () => void): () => void {
  const onAbort = () => {
    if (pair.node.signal.aborted) return;
    void pair.node.stop('tern-exec stopped').then(onStopped);
  };
  pair.exec.signal.addEventListener('abort', onAbort, { once: true });
  return () => pair.exec.signal.removeEventListener('abort', onAbort);
}
