// `npm run build:native`: builds the Rust N-API module and copies it to native/tern_native.node.
// Without cargo, or if the build fails, tern still runs on the JS fallbacks, so this warns and exits 0 —
// unless TERN_REQUIRE_NATIVE=1 (CI), where a silent fallback would hide a broken build.
import { spawnSync } from 'node:child_process';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const required = process.env.TERN_REQUIRE_NATIVE === '1';
const dest = join(root, 'native', 'tern_native.node');

function fail(reason) {
  if (required) {
    console.error(`build:native: ${reason} (TERN_REQUIRE_NATIVE=1, so this is an error)`);
    process.exit(1);
  }
  console.warn(`build:native: warning: ${reason}; tern will use the slower JS fallbacks`);
  process.exit(0);
}

const libName = { darwin: 'libtern_native.dylib', win32: 'tern_native.dll' }[process.platform] ?? 'libtern_native.so';
const env = { ...process.env };
// A Node addon leaves the napi_* symbols for the node executable to provide; macOS's linker must be told so.
if (process.platform === 'darwin') {
  env.RUSTFLAGS = `${env.RUSTFLAGS ?? ''} -C link-arg=-undefined -C link-arg=dynamic_lookup`.trim();
}

const cargo = process.env.CARGO ?? 'cargo';
const build = spawnSync(cargo, ['build', '--release', '--offline', '--quiet'], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (build.error) {
  fail(build.error.code === 'ENOENT' ? `${cargo} not found` : `could not run ${cargo}: ${build.error.message}`);
}
if (build.status !== 0) fail(`cargo build failed (${build.signal ?? `exit status ${build.status}`})`);

const targetDir = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
const built = join(targetDir, 'release', libName);
// Copy then rename, so a process loading the module never sees a half-written file.
const tmp = `${dest}.${process.pid}.tmp`;
try {
  copyFileSync(built, tmp);
  renameSync(tmp, dest);
} catch (err) {
  rmSync(tmp, { force: true });
  fail(`could not copy ${built} to ${dest}: ${err instanceof Error ? err.message : String(err)}`);
}
console.log(`build:native: built ${dest}`);
