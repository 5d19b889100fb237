import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import { InfluxReporter, lineProtocol, parseTags } from '../../../../../src/main/exec/metrics/influx.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

interface Received {
  url: string;
  auth: string | undefined;
  body: string;
}

describe('InfluxReporter', () => {
  const received: Received[] = [];
  let status = 204;
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      res.writeHead(status).end();
    });
  });
  let endpoint = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const registry = new MetricsRegistry({ defaultMetrics: false });
  const f = registry.factory();
  f.gauge({ name: 'chain/head/block', help: 'h' }).set(7);
  f.counter({ name: 'rpc/requests', help: 'h' }).inc(3);
  f.summary({ name: 'chain/inserts', help: 'h' }).observe(5);

  it("writes geth's measurements in line protocol with the tags", () => {
    const lines = lineProtocol([{ name: 'a b,c', type: 'gauge', series: [{ labels: { pool: 'x y' }, value: 1.5 }] }], {
      namespace: 'geth.',
      tags: { host: 'localhost' },
      timeNs: 5n,
    });
    expect(lines).toEqual(['geth.a\\ b\\,c.gauge,host=localhost,pool=x\\ y value=1.5 5']);
  });

  it('v1: POSTs to /write?db= with basic auth, every series present', async () => {
    received.length = 0;
    const r = new InfluxReporter(
      { endpoint, version: 1, database: 'tern', username: 'u', password: 'p', tags: parseTags(['host=localhost']) },
      { registry, logger },
    );
    expect(await r.push()).toBe(true);
    const [got] = received;
    expect(got?.url).toMatch(/^\/write\?db=tern&precision=ns$/);
    expect(got?.auth).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(got?.body).toMatch(/^geth\.chain\/head\/block\.gauge,host=localhost value=7 \d+$/m);
    expect(got?.body).toMatch(/^geth\.rpc\/requests\.count,host=localhost value=3i \d+$/m);
    expect(got?.body).toMatch(/^geth\.chain\/inserts\.timer,host=localhost count=1i,mean=5,p50=5,.*p999=5 \d+$/m);
  });

  it('v2: POSTs to /api/v2/write with org, bucket and token; a refused push reports false', async () => {
    received.length = 0;
    const r = new InfluxReporter(
      { endpoint, version: 2, token: 'tok', organization: 'o', bucket: 'b' },
      { registry, logger },
    );
    expect(await r.push()).toBe(true);
    expect(received[0]?.url).toBe('/api/v2/write?org=o&bucket=b&precision=ns');
    expect(received[0]?.auth).toBe('Token tok');
    status = 401;
    expect(await r.push()).toBe(false);
    status = 204;
  });

  it('pushes on its interval', async () => {
    received.length = 0;
    const r = new InfluxReporter({ endpoint, version: 1, intervalMs: 50 }, { registry, logger });
    r.start();
    await new Promise((res) => setTimeout(res, 300));
    r.stop();
    expect(received.length).toBeGreaterThanOrEqual(2);
  });
});
