// The pprof server as go tool pprof uses it: every answer parses, and a CPU profile taken while a worker pool is
// busy shows the pool thread's own frames under its [thread: …] root. Needs `go` (Debian's golang-go; .ci/run
// installs it) and the compiled worker modules in dist/ (npm test builds first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { ListenerAddress } from '../../../../../src/main/common/metrics/listener.js';
import { PprofServer } from '../../../../../src/main/common/pprof/server.js';
import type { TaskMapOf } from '../../../../../src/main/pool/interface.js';
import { PiscinaPool } from '../../../../../src/main/pool/piscina.js';
import type * as keccakTasks from '../../../../../src/workers/keccak.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-pprof-'));

function goPprofTop(file: string, ...args: string[]): string {
  return execFileSync('go', ['tool', 'pprof', '-top', ...args, file], { encoding: 'utf8', stdio: 'pipe' });
}

async function fetchTo(url: string, name: string): Promise<{ file: string; status: number; body: Buffer }> {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  const file = join(dir, name);
  writeFileSync(file, body);
  return { file, status: res.status, body };
}

describe('PprofServer', () => {
  const server = new PprofServer({ host: '127.0.0.1', port: 0 }, { logger });
  let addr: ListenerAddress;
  beforeAll(async () => {
    addr = await server.start();
  });
  afterAll(() => server.stop());

  it('serves an index naming every profile', async () => {
    const res = await fetch(`${addr.url}/debug/pprof/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const p of ['profile', 'heap', 'allocs', 'goroutine', 'threadcreate', 'block', 'mutex']) {
      expect(html).toContain(`/debug/pprof/${p}`);
    }
  });

  it('a CPU profile taken while a pool is busy covers the worker thread, and go tool pprof reads it', async () => {
    const pool = new PiscinaPool<TaskMapOf<typeof keccakTasks>>('keccak', { threads: 1 });
    try {
      const data = new Uint8Array(1 << 20).fill(7);
      const offsets = Uint32Array.from({ length: 1025 }, (_, i) => i * 1024);
      await pool.run('whoami', null); // the thread is up before the profile starts
      let busy = true;
      const work = (async () => {
        while (busy) await pool.run('keccakBatch', { data, offsets });
      })();
      const { file, status, body } = await fetchTo(`${addr.url}/debug/pprof/profile?seconds=2`, 'cpu.pb.gz');
      busy = false;
      await work;
      expect(status).toBe(200);
      expect(body[0]).toBe(0x1f); // gzip
      const top = goPprofTop(file, '-cum', '-nodecount=200');
      expect(top).toMatch(/\[thread main 0\]/);
      expect(top, top).toMatch(/\[thread worker \d+ keccak\]/);
      // The worker's own task function, sampled inside the worker thread.
      expect(top, top).toMatch(/keccakBatch/);
      const tags = execFileSync('go', ['tool', 'pprof', '-tags', file], { encoding: 'utf8' });
      expect(tags).toMatch(/thread:.*worker \d+ keccak/s);
    } finally {
      await pool.close();
    }
  });

  it('refuses a second CPU profile while one runs, as Go does', async () => {
    const first = fetch(`${addr.url}/debug/pprof/profile?seconds=1`);
    await new Promise((r) => setTimeout(r, 200));
    const second = await fetch(`${addr.url}/debug/pprof/profile?seconds=1`);
    expect(second.status).toBe(500);
    expect(await second.text()).toMatch(/already/);
    expect((await first).status).toBe(200);
  });

  it.each(['heap', 'allocs', 'goroutine', 'threadcreate', 'block', 'mutex'])(
    '%s is a pprof file go tool pprof reads',
    async (name) => {
      const { file, status, body } = await fetchTo(`${addr.url}/debug/pprof/${name}`, `${name}.pb.gz`);
      expect(status).toBe(200);
      expect(gunzipSync(body).length).toBeGreaterThan(0);
      const top = goPprofTop(file);
      expect(top).toMatch(/Showing nodes|Type:/);
      if (name === 'goroutine' || name === 'threadcreate') expect(top).toMatch(/\[thread main/);
    },
  );

  it('answers debug=1 with text and explains what has no Node equivalent', async () => {
    const mutex = await (await fetch(`${addr.url}/debug/pprof/mutex?debug=1`)).text();
    expect(mutex).toMatch(/no mutexes/);
    const goroutine = await (await fetch(`${addr.url}/debug/pprof/goroutine?debug=1`)).text();
    expect(goroutine).toMatch(/^goroutine profile: total \d+ threads/);
    const trace = await fetch(`${addr.url}/debug/pprof/trace`);
    expect(trace.status).toBe(501);
    expect((await fetch(`${addr.url}/debug/pprof/profile?seconds=-1`)).status).toBe(400);
    expect((await fetch(`${addr.url}/debug/pprof/nope`)).status).toBe(404);
  });
});
