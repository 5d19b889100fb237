// geth's noopTracer: hooks that record nothing and an empty object as the result (useful to time a replay).
import { TracerBase } from './base.js';
import type { EvmListeners } from './evmEvents.js';

export class NoopTracer extends TracerBase {
  protected listeners(): EvmListeners {
    // Still stoppable: the deadline is checked at each call frame.
    return { beforeMessage: () => this.check() };
  }
  protected start(): void {}
  protected end(): void {}
  result(): Record<string, never> {
    this.throwIfStopped();
    return {};
  }
}
