export {
  LOG_FILE_DEFAULTS,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFileOptions,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  type LogRoot,
} from './interface.js';
export { levelFromName, levelFromVerbosity, parseVmodule } from './levels.js';
export { createLogger } from './logger.js';
