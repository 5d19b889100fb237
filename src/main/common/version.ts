// The version line both programs print: the package version, plus the commit and build time when the build
// step could read them from a git checkout (scripts/write-build-info.mjs writes dist/build-info.json).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths.js';

export interface BuildInfo {
  version: string;
  commit?: string;
  dirty?: boolean;
  builtAt?: string;
}

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const root = projectRoot();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const infoPath = join(root, 'dist', 'build-info.json');
  const extra = existsSync(infoPath) ? (JSON.parse(readFileSync(infoPath, 'utf8')) as Partial<BuildInfo>) : {};
  cached = { ...extra, version: pkg.version };
  return cached;
}

/** e.g. `0.1.0-unstable (commit 1a2b3c4d5e6f, dirty, built 2026-11-22T06:00:00Z)`. */
export function versionLine(): string {
  const info = buildInfo();
  const details = [
    info.commit ? `commit ${info.commit.slice(0, 12)}` : undefined,
    info.dirty ? 'dirty' : undefined,
    info.builtAt ? `built ${info.builtAt}` : undefined,
  ].filter((x) => x !== undefined);
  // A build from a checkout is not a release: say so rather than print a bare release number.
  const label = info.commit ? `${info.version}-unstable` : info.version;
  return details.length > 0 ? `${label} (${details.join(', ')})` : label;
}
