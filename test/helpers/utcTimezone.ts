// Log timestamps are formatted in the local time zone: tests that compare them set TZ=UTC for each test and put the
// caller's TZ back afterwards.
import { afterEach, beforeEach } from 'vitest';

export function inUtcTimezone(): void {
  let savedTz: string | undefined;
  beforeEach(() => {
    savedTz = process.env.TZ;
    process.env.TZ = 'UTC';
  });
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });
}
