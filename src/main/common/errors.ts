// The project's errors: the coded base class (from primitives/, so pure code and workers share it) and the
// program-level errors the CLI turns into exit statuses.
import { TernError } from '../primitives/errors.js';

export {
  deserializeError,
  type SerializedError,
  serializeError,
  TernError,
} from '../primitives/errors.js';

/** A user-facing configuration or input error: one clear line, exit status 2, nothing started. */
export class UsageError extends TernError {
  constructor(message: string) {
    super('USAGE', message);
    this.name = 'UsageError';
  }
}

/** A failure the operator should read as one line (an invalid block in an import file): exit status 1, no stack. */
export class ReportedError extends TernError {
  constructor(message: string, cause?: unknown) {
    super('REPORTED', message, cause === undefined ? {} : { cause });
    this.name = 'ReportedError';
  }
}
