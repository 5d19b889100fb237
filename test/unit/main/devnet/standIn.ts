// Launcher options that run the stand-in programs (fakeProgram.mjs) in a fresh temporary workdir each, removed
// by removeWorkdirs (each suite calls it after every test).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_CAPABLE } from '../../../../src/main/devnet/capabilities.js';
import type { DevnetOptions } from '../../../../src/main/devnet/launcher.js';

const fake = join(dirname(fileURLToPath(import.meta.url)), 'fakeProgram.mjs');
const dirs: string[] = [];

/** The command line of the stand-in for one program (`exec`, `node`, `batcher`, `pair`). */
export const standIn = (program: string): string[] => [process.execPath, fake, program];

/** The launcher's options over the stand-in programs, in a new workdir named from `prefix`, with `over` on top. */
export function standInOptions(prefix: string, over: Partial<DevnetOptions> = {}): DevnetOptions {
  const workdir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(workdir);
  return {
    workdir,
    existing: 'fail',
    replicas: 1,
    blockTime: 2,
    l1BlockTime: 2,
    dataAvailability: 'blobs',
    seqWindow: 200,
    jovian: false,
    l2ChainId: 901n,
    host: '127.0.0.1',
    readyTimeoutMs: 15_000,
    programs: { exec: standIn('exec'), node: standIn('node'), batcher: standIn('batcher') },
    capabilities: ALL_CAPABLE,
    ...over,
  };
}

/** Removes the workdirs standInOptions made. */
export function removeWorkdirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A launcher output that prints nothing. */
export const quiet = { print: () => {} };
