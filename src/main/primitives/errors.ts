// Errors that carry a code (and, in derivation and engine code, a severity) and survive a trip across a
// worker-thread boundary as plain data. The base class lives here, at the bottom of the layers, so pure code and
// worker task modules can throw it; common/errors.ts re-exports it with the program-level errors.

export type Severity = 'temporary' | 'reset' | 'critical';

export class TernError extends Error {
  readonly code: string;
  readonly severity: Severity | undefined;

  constructor(code: string, message: string, opts: { severity?: Severity; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TernError';
    this.code = code;
    this.severity = opts.severity;
  }

  /** Plain-data form, safe to post to another thread. */
  toJSON(): SerializedError {
    return { code: this.code, message: this.message, severity: this.severity };
  }
}

export interface SerializedError {
  code: string;
  message: string;
  severity?: Severity | undefined;
}

/** Turns anything thrown into its plain-data form. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof TernError) return err.toJSON();
  if (err instanceof Error) {
    const code: unknown = (err as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : 'INTERNAL', message: err.message };
  }
  return { code: 'INTERNAL', message: String(err) };
}

/** Rebuilds an error from its plain-data form (the receiving side of a thread boundary). */
export function deserializeError(e: SerializedError): TernError {
  return new TernError(e.code, e.message, e.severity === undefined ? {} : { severity: e.severity });
}
