// What the end-to-end tests that spawn tern programs share: a free loopback port, an environment without the
// developer's TERN_* settings, one JSON-RPC call over HTTP, and polling until a value is right.
import { freePorts } from '../../src/main/devnet/ports.js';

// Ports handed out in this test process: a port is free only until the program it was meant for binds it, and the
// OS may hand the same one out again before then (seen: tern-node's P2P port given again for its metrics server).
const handedOut = new Set<number>();

/** A free loopback port not handed out before in this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const [port] = (await freePorts(1)) as [number];
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** process.env without TERN_* variables, so a developer's settings never leak into a spawned program. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('TERN_')) delete env[k];
  return env;
}

/** One JSON-RPC call; an error answer throws with the method's name. */
export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Calls `f` until `ok` holds or `ms` pass; returns the last value (the caller asserts on it). */
export async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000, everyMs = 200): Promise<T> {
  const end = Date.now() + ms;
  let v = await f();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, everyMs));
    v = await f();
  }
  return v;
}
