// Minimal JSON-RPC and REST reads for readiness checks and the status line (fetch, a short timeout, no retries:
// the callers poll).
import { TernError } from '../common/errors.js';

export async function rpcCall<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 3000,
): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new TernError('DEVNET_RPC', `${method} at ${url}: HTTP ${res.status}`);
  const body = (await res.json()) as { result?: T; error?: { message?: string } };
  if (body.error) throw new TernError('DEVNET_RPC', `${method} at ${url}: ${body.error.message ?? 'error'}`);
  return body.result as T;
}

export async function getJson<T = unknown>(url: string, timeoutMs = 3000): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new TernError('DEVNET_RPC', `GET ${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}
