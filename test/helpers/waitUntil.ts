// Polling for the tests that wait on something asynchronous (a peer connected, a block derived): checks `cond`
// every `everyMs` and fails with what it waited for once `timeoutMs` has passed.

export interface WaitOptions {
  /** Named in the timeout error. */
  what?: string;
  timeoutMs: number;
  everyMs: number;
}

export async function waitUntil(cond: () => boolean | Promise<boolean>, o: WaitOptions): Promise<void> {
  const end = Date.now() + o.timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(o.what === undefined ? 'timed out' : `timed out waiting for ${o.what}`);
    await new Promise((r) => setTimeout(r, o.everyMs));
  }
}
