// A stand-in for tern-exec, tern-node, tern-pair and tern-batcher in the launcher tests: `init` writes a datadir; otherwise it
// serves just enough JSON-RPC (and, with --dev, the beacon genesis endpoint) for readiness and status checks.
// Environment knobs: FAKE_DIE_MATCH + FAKE_DIE_AFTER_MS (exit 3 when an argument contains the match),
// FAKE_SILENT_MATCH (never answer), FAKE_WRONG_GENESIS=1.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [program, ...argv] = process.argv.slice(2);
const flag = (name) => {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? undefined : a.slice(name.length + 3);
};
const matches = (env) =>
  process.env[env] !== undefined && [...argv, process.cwd()].some((a) => a.includes(process.env[env]));

if (argv[0] === 'init') {
  const datadir = flag('datadir');
  const genesis = JSON.parse(readFileSync(argv.at(-1), 'utf8'));
  const { genesisBlockId } = await import('../../../../dist/src/main/devnet/genesis.js');
  mkdirSync(join(datadir, 'chaindata'), { recursive: true });
  writeFileSync(join(datadir, 'chaindata', 'genesis'), genesisBlockId(genesis).hash);
  process.stdout.write(`fake ${program} init ok\n`);
  process.exit(0);
}

process.stdout.write(`fake ${program} started ${argv.join(' ')}\n`);
if (matches('FAKE_DIE_MATCH')) {
  setTimeout(
    () => {
      process.stderr.write('boom: fake failure\n');
      process.exit(3);
    },
    Number(process.env.FAKE_DIE_AFTER_MS ?? 1000),
  );
}

const genesisHash = () => {
  if (process.env.FAKE_WRONG_GENESIS) return `0x${'ee'.repeat(32)}`;
  return readFileSync(join(flag('datadir'), 'chaindata', 'genesis'), 'utf8');
};
const block = (n) => ({
  number: `0x${n.toString(16)}`,
  hash: n === 0 ? genesisHash() : `0x${n.toString(16).padStart(64, '0')}`,
});

function rpc(method, params) {
  switch (method) {
    case 'eth_chainId':
      return '0x1';
    case 'eth_blockNumber':
      return '0x9';
    case 'eth_getBlockByNumber': {
      const tag = params[0];
      if (tag === '0x0') return block(0);
      if (tag === 'latest') return block(7);
      if (tag === 'safe') return block(5);
      if (tag === 'finalized') return block(1);
      return block(Number(tag));
    }
    case 'optimism_syncStatus':
      return { unsafe_l2: { number: 7 }, safe_l2: { number: 5 }, finalized_l2: { number: 1 } };
    default:
      return null;
  }
}

function serve(port, handler) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(handler(req, body)));
    });
  });
  server.listen(Number(port), '127.0.0.1');
  return server;
}

const servers = [];
if (!matches('FAKE_SILENT_MATCH')) {
  // tern-pair gets both: its tern-node's --rpc.port and its tern-exec's --http.port.
  for (const port of new Set([flag('http.port'), flag('rpc.port')])) {
    if (port === undefined) continue;
    servers.push(
      serve(port, (_req, body) => {
        const { id, method, params } = JSON.parse(body);
        return { jsonrpc: '2.0', id, result: rpc(method, params ?? []) };
      }),
    );
  }
  if (argv.includes('--dev')) {
    servers.push(serve(flag('dev.beacon.port'), () => ({ data: { genesis_time: '1' } })));
  }
}
// Keep running until told to stop; SIGTERM is a clean exit.
const keepAlive = setInterval(() => {}, 1 << 30);
process.on('SIGTERM', () => {
  clearInterval(keepAlive);
  for (const s of servers) s.close();
  process.stdout.write(`fake ${program} stopping\n`);
  process.exit(0);
});
