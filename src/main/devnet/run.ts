// Runs a devnet until asked to stop or until a child dies: the summary once everything answers, a status line
// every few seconds, and on the way out where the logs are. Returns the exit status.
import { relative } from 'node:path';
import { Devnet, type DevnetDeps, type DevnetInfo, type DevnetOptions } from './launcher.js';
import { describeExit } from './process.js';
import { formatStatus, snapshot } from './status.js';

export interface RunOptions extends DevnetOptions {
  statusIntervalMs: number;
}

export function summary(info: DevnetInfo): string[] {
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return r === '' ? '.' : r.startsWith('..') ? p : r;
  };
  const lines = [
    `tern-devnet running in ${info.workdir}`,
    info.l1.program === 'anvil'
      ? `  L1 (anvil, chain ${info.l1.chainId})  rpc ${info.l1.rpc}  beacon proxy ${info.l1.beacon}`
      : `  L1 (tern-exec --dev, chain ${info.l1.chainId})  rpc ${info.l1.rpc}  beacon ${info.l1.beacon}`,
  ];
  if (info.l1.program === 'anvil') {
    lines.push('  NOTE: rollup nodes run with --l1.trustrpc (anvil computes wrong transactions roots for blob blocks)');
  }
  for (const n of info.nodes) {
    lines.push(
      `  ${n.name.padEnd(10)} exec ${n.execRpc}  engine ${n.engine}  node ${n.nodeRpc ?? 'not running'}` +
        (n.metrics ? `  metrics ${n.metrics}` : '') +
        (n.pids.exec !== undefined && n.pids.exec === n.pids.node
          ? `  (one tern-pair process, pid ${n.pids.exec})`
          : ''),
    );
  }
  lines.push(
    info.batcher
      ? `  batcher    ${info.batcher.address} posting ${info.batcher.dataAvailability}`
      : '  batcher    not running',
  );
  if (info.daServer !== undefined) {
    lines.push(
      `  DA server  ${info.daServer.url} pid ${info.daServer.pid} (start again: ${info.daServer.command.join(' ')})`,
    );
  }
  const test = info.accounts.find((a) => a.role === 'test');
  if (test) lines.push(`  funded test account ${test.address} key ${test.privateKey} (all keys in devnet.json)`);
  lines.push(`  endpoints: ${rel(`${info.workdir}/devnet.json`)}   logs: ${rel(`${info.workdir}/logs`)}/`);
  if (info.missing.length > 0) {
    lines.push('  NOT RUNNING in this build:');
    for (const m of info.missing) lines.push(`    - ${m}`);
  }
  lines.push('  Ctrl-C stops everything.');
  return lines;
}

export async function runDevnet(opts: RunOptions, deps: DevnetDeps, signal: AbortSignal): Promise<number> {
  const devnet = new Devnet(opts, deps);
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  deps.print(`tern-devnet: starting in ${opts.workdir} …`);
  let info: DevnetInfo;
  try {
    const started = await Promise.race([devnet.start(), aborted.then(() => undefined)]);
    if (started === undefined) {
      await devnet.stop();
      deps.print(`tern-devnet: stopped before it was up; logs are in ${opts.workdir}/logs`);
      return 0;
    }
    info = started;
  } catch (err) {
    deps.print(`tern-devnet: ${(err as Error).message}`);
    deps.print(`tern-devnet: stopped; logs are in ${opts.workdir}/logs`);
    return 1;
  }
  for (const line of summary(info)) deps.print(line);

  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const tick = async () => {
    const line = formatStatus(await snapshot(info));
    if (done) return;
    deps.print(line);
    timer = setTimeout(tick, opts.statusIntervalMs);
  };
  timer = setTimeout(tick, Math.min(opts.statusIntervalMs, 2000));

  const outcome = await Promise.race([aborted.then(() => undefined), devnet.died]);
  done = true;
  clearTimeout(timer);
  let code = 0;
  if (outcome !== undefined) {
    const proc = devnet.processes.find((p) => p.spec.name === outcome.name);
    deps.print(`tern-devnet: ${outcome.name} ${describeExit(outcome.exit)}; last lines of ${proc?.spec.logFile}:`);
    for (const line of (proc?.tail(15) ?? '').split('\n')) deps.print(`  | ${line}`);
    deps.print('tern-devnet: stopping the rest');
    code = 1;
  } else {
    deps.print('tern-devnet: stopping');
  }
  await devnet.stop();
  deps.print(`tern-devnet: stopped; logs are in ${info.workdir}/logs`);
  return code;
}
