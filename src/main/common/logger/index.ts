export type {
  LogFileOptions,
  LogFormat,
  Logger,
  LoggerOptions,
  LogLevel,
  LogRoot,
} from './interface.js';
export { levelFromName, levelFromVerbosity, parseVmodule } from './levels.js';
export { createLogger } from './logger.js';
