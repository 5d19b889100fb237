// Records the git commit the build comes from (if it comes from a checkout) in dist/build-info.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const commit = git(['rev-parse', 'HEAD']);
const info = { builtAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
if (commit) {
  info.commit = commit;
  info.dirty = (git(['status', '--porcelain', '--untracked-files=no']) ?? '') !== '';
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', `${JSON.stringify(info)}\n`);
