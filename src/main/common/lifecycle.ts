// Orderly shutdown: modules register stop hooks as they start; SIGINT/SIGTERM (or stop()) runs them in reverse
// order — listeners first, databases last — within a deadline, so the process exits 0 well under 5 s.
import type { Logger } from './logger/index.js';

export interface StopHook {
  readonly name: string;
  readonly stop: () => Promise<void> | void;
}

export class Lifecycle {
  private readonly hooks: StopHook[] = [];
  private readonly controller = new AbortController();
  private stopping: Promise<void> | undefined;
  private resolveStopped!: () => void;
  /** Resolves once stop() has run every hook. */
  readonly stopped: Promise<void> = new Promise((resolve) => {
    this.resolveStopped = resolve;
  });

  constructor(
    private readonly logger: Logger,
    private readonly deadlineMs = 4000,
  ) {}

  /** Aborted when shutdown begins; long-running loops watch it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  onStop(name: string, stop: () => Promise<void> | void): void {
    this.hooks.push({ name, stop });
  }

  /** Runs every hook once, newest first; a hook that fails or hangs is logged and skipped past. */
  stop(reason: string): Promise<void> {
    this.stopping ??= this.runHooks(reason);
    return this.stopping;
  }

  private async runHooks(reason: string): Promise<void> {
    this.logger.info('Shutting down', { reason });
    this.controller.abort(new Error(reason));
    const deadline = Date.now() + this.deadlineMs;
    for (const hook of [...this.hooks].reverse()) {
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(hook.stop),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), Math.max(left, 0));
          }),
        ]);
      } catch (err) {
        this.logger.error('Stop hook failed', {
          hook: hook.name,
          err: err instanceof Error ? err.message : String(err),
        });
      } finally {
        clearTimeout(timer);
      }
    }
    this.resolveStopped();
  }

  /** SIGINT/SIGTERM stop the program; a second signal while stopping exits at once. */
  handleSignals(onStopped: () => void): void {
    const handler = (sig: NodeJS.Signals): void => {
      if (this.stopping) {
        this.logger.warn('Second signal while shutting down, exiting now', { signal: sig });
        process.exit(1);
      }
      void this.stop(`received ${sig}`).then(onStopped);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  }
}
