// A debug-level JSON logger whose lines the test reads back (level and message of each).
import { createLogger, type Logger } from '../../src/main/common/logger/index.js';

export function captureLogger(): { logger: Logger; lines: Array<{ lvl: string; msg: string }> } {
  const lines: Array<{ lvl: string; msg: string }> = [];
  const { logger } = createLogger({
    level: 'debug',
    format: 'json',
    stream: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}
