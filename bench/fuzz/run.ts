// npm run fuzz [count] [seed]: the RPC fuzzer against a fresh tern-exec --dev (default 1,000,000 requests). Exits
// non-zero on a crash, a non-JSON answer, a malformed reply, a -32603 for bad input, or RSS past 1.5 GB.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevExec } from './devExec.js';
import { fuzz } from './rpcFuzz.js';

const RSS_LIMIT = 1.5 * 1024 ** 3;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const count = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const node = await startDevExec(join(root, 'bin', 'tern-exec.js'));
let peak = 0;
const started = performance.now();
const stats = await fuzz(node.rpc, {
  count,
  seed,
  concurrency: 16,
  onProgress: (done) => {
    peak = Math.max(peak, node.rss() ?? 0);
    if (done % 50_000 === 0)
      process.stdout.write(
        `${done} requests, ${Math.round(done / ((performance.now() - started) / 1000))}/s, RSS ${Math.round(peak / 2 ** 20)} MB\n`,
      );
  },
});
const alive = node.child.exitCode === null;
peak = Math.max(peak, node.rss() ?? 0);
const exit = await node.stop();
const out = { seed, ...stats, alive, exitCode: exit, peakRssMB: Math.round(peak / 2 ** 20) };
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
const bad =
  !alive ||
  stats.nonJson > 0 ||
  stats.internalErrors > 0 ||
  stats.malformedReplies > 0 ||
  stats.transportErrors > 0 ||
  peak > RSS_LIMIT;
if (bad) process.stdout.write(`FAILED\n${node.logs().slice(-4000)}\n`);
process.exitCode = bad ? 1 : 0;
