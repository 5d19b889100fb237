// A call's scope (header, state, block hashes) seen from a call worker thread when only the coordinator can see the
// state: `tern-exec --dev` without --datadir runs on an in-memory store no other thread can see, and a computed
// pending block's state lives only in the coordinator's view. (On LMDB the worker reads the resolved block from a
// snapshot of its own, ../workers/snapshotScope.ts, and never waits for the coordinator's event loop.) The worker asks
// for each account, slot, code and block hash it misses over a MessagePort and blocks on a shared flag until the
// answer is posted (StateReader is synchronous, as execution needs it); every answer is cached for the rest of the
// call. The coordinator half (`serveScope`) answers from the scope the call was handed, inside the read view that
// keeps its snapshot alive until the worker is done.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { TernError } from '../../common/errors.js';
import type { Header } from '../../primitives/block/header.js';
import type { AccountRecord, StateReader } from '../state/interface.js';
import type { CallScope } from './call.js';

/** What the worker asks; `start` needs no answer (it tells the coordinator the call began running). */
export type ScopeRequest =
  | { k: 'start' }
  | { k: 'account'; address: Uint8Array }
  | { k: 'storage'; address: Uint8Array; slot: Uint8Array }
  | { k: 'code'; hash: Uint8Array }
  | { k: 'hash'; number: bigint };

type ScopeAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string };

/** The handles a worker gets for one call: the port and the shared flag the coordinator raises after answering. */
export interface RemoteScopeHandle {
  readonly header: Header;
  readonly port: MessagePort;
  /** An Int32Array(1) over a SharedArrayBuffer: 0 while waiting, 1 once an answer is posted. */
  readonly flag: Int32Array;
}

/**
 * The block a call runs on as the coordinator resolved it, for a worker that reads it from an LMDB snapshot of its
 * own (../workers/snapshotScope.ts): where the database is (the LMDB environment, the ancient store) and the block's
 * hash; its header (number, state root) travels beside it.
 */
export interface SnapshotPin {
  readonly paths: { readonly chaindata: string; readonly ancientChain: string };
  readonly hash: Uint8Array;
}

/** How long the worker waits for one answer before giving up (the coordinator is gone or wedged). */
const ANSWER_TIMEOUT_MS = 30_000;

const key = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** Worker side: a CallScope whose reads go to the coordinator, each answer cached for the call. */
export function remoteScope(handle: RemoteScopeHandle): CallScope {
  const { port, flag } = handle;
  const ask = (req: ScopeRequest): unknown => {
    Atomics.store(flag, 0, 0);
    port.postMessage(req);
    const until = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const left = until - Date.now();
      if (left <= 0) throw new TernError('CALL_STATE_TIMEOUT', 'the coordinator did not answer a state read');
      Atomics.wait(flag, 0, 0, left);
      const msg = receiveMessageOnPort(port);
      if (msg === undefined) continue;
      const answer = msg.message as ScopeAnswer;
      if (!answer.ok) throw new TernError(answer.code, answer.message);
      return answer.value;
    }
  };
  const accounts = new Map<string, AccountRecord | undefined>();
  const slots = new Map<string, bigint>();
  const codes = new Map<string, Uint8Array>();
  const hashes = new Map<bigint, Uint8Array | undefined>();
  const reader: StateReader = {
    getAccount(address) {
      const k = key(address);
      if (accounts.has(k)) return accounts.get(k);
      const v = ask({ k: 'account', address }) as AccountRecord | undefined;
      accounts.set(k, v);
      return v;
    },
    getStorage(address, slot) {
      const k = key(address) + key(slot);
      const cached = slots.get(k);
      if (cached !== undefined) return cached;
      const v = ask({ k: 'storage', address, slot }) as bigint;
      slots.set(k, v);
      return v;
    },
    getCode(hash) {
      const k = key(hash);
      const cached = codes.get(k);
      if (cached !== undefined) return cached;
      const v = ask({ k: 'code', hash }) as Uint8Array;
      codes.set(k, v);
      return v;
    },
  };
  return {
    header: handle.header,
    reader,
    getBlockHash(number) {
      if (hashes.has(number)) return hashes.get(number);
      const v = ask({ k: 'hash', number }) as Uint8Array | undefined;
      hashes.set(number, v);
      return v;
    },
  };
}

/** Tells the coordinator the call has left the queue and started running (its hard deadline starts now). */
export function announceStart(handle: RemoteScopeHandle): void {
  handle.port.postMessage({ k: 'start' } satisfies ScopeRequest);
}

/**
 * Coordinator side: answers the worker's reads from `scope` until the port closes. `onStart` runs when the worker
 * starts the call. Lookups are synchronous; a failing one (missing code, a broken trie node) is answered as an error.
 */
export function serveScope(scope: CallScope, port: MessagePort, flag: Int32Array, onStart: () => void): void {
  port.on('message', (req: ScopeRequest) => {
    if (req.k === 'start') {
      onStart();
      return;
    }
    let answer: ScopeAnswer;
    try {
      answer = { ok: true, value: lookup(scope, req) };
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      answer = {
        ok: false,
        code: typeof e.code === 'string' ? e.code : 'CALL_STATE_READ',
        message: typeof e.message === 'string' ? e.message : String(err),
      };
    }
    port.postMessage(answer);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}

function lookup(scope: CallScope, req: Exclude<ScopeRequest, { k: 'start' }>): unknown {
  switch (req.k) {
    case 'account':
      return scope.reader.getAccount(req.address);
    case 'storage':
      return scope.reader.getStorage(req.address, req.slot);
    case 'code':
      return scope.reader.getCode(req.hash);
    case 'hash':
      return scope.getBlockHash(req.number);
  }
}
