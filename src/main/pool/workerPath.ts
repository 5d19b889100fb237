// The one place that decides where worker entry files are loaded from. Worker threads do not pass through vitest's
// TypeScript transform, so tests and production both load the compiled module from dist/ (`npm test` builds first).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TernError } from '../common/errors.js';
import { projectRoot } from '../common/paths.js';

const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Task modules that run a program's own code (tern-exec's EVM for the call workers) belong to that program and live
 * in its `workers/` folder; every other task module is program-neutral and lives in src/workers/ (see
 * docs/architecture.md).
 */
const PROGRAM_TASKS: Readonly<Record<string, string>> = {
  calls: join('main', 'exec', 'workers'),
  executor: join('main', 'exec', 'workers'),
  gossipBlocks: join('main', 'node', 'workers'),
};

/**
 * Absolute path of the compiled task module `<root>/dist/src/workers/<name>.js` (or its program's folder), whether
 * this code runs from src/ (vitest) or dist/. Throws WORKER_NOT_BUILT when it is missing.
 */
export function workerPath(name: string): string {
  if (!NAME.test(name)) throw new TernError('WORKER_NAME', `invalid worker module name '${name}'`);
  const file = join(projectRoot(), 'dist', 'src', PROGRAM_TASKS[name] ?? 'workers', `${name}.js`);
  if (!existsSync(file)) {
    throw new TernError(
      'WORKER_NOT_BUILT',
      `worker module ${file} is missing: worker threads load compiled code, so run \`npm run build\` first`,
    );
  }
  return file;
}

/** Absolute path of the compiled pool-thread entry (threadEntry.ts), which hosts a task module in each thread. */
export function threadEntryPath(): string {
  const file = join(projectRoot(), 'dist', 'src', 'main', 'pool', 'threadEntry.js');
  if (!existsSync(file)) {
    throw new TernError(
      'WORKER_NOT_BUILT',
      `pool thread entry ${file} is missing: worker threads load compiled code, so run \`npm run build\` first`,
    );
  }
  return file;
}
