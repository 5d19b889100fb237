// HS256 tokens and the authenticated endpoint (Engine API): geth's jwtHandler rules over HTTP and WS upgrades.
import { createHmac, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { HttpRpcServer } from '../../../../../src/main/common/rpc/http.js';
import { checkAuthorization, signJwt, verifyJwt } from '../../../../../src/main/common/rpc/jwt.js';
import { createAuthRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { postJson, recordingLogger, testRegistry } from './helpers.js';

const SECRET = randomBytes(32);
const NOW = 1_700_000_000_000;

const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
function token(header: unknown, claims: unknown, secret: Uint8Array = SECRET): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const HS256 = { alg: 'HS256', typ: 'JWT' };

describe('JWT (HS256)', () => {
  it('accepts its own tokens and the optional id/clv claims', () => {
    const t = signJwt(SECRET, { id: 'tern-node', clv: 'v0.1.0' }, NOW);
    const verdict = verifyJwt(t, SECRET, NOW);
    expect(verdict).toEqual({ ok: true, claims: { iat: NOW / 1000, id: 'tern-node', clv: 'v0.1.0' } });
  });

  it('accepts iat within ±60 s and rejects stale and future tokens', () => {
    const iat = NOW / 1000;
    expect(verifyJwt(token(HS256, { iat: iat - 60 }), SECRET, NOW).ok).toBe(true);
    expect(verifyJwt(token(HS256, { iat: iat + 60 }), SECRET, NOW).ok).toBe(true);
    expect(verifyJwt(token(HS256, { iat: iat - 61 }), SECRET, NOW)).toEqual({ ok: false, reason: 'stale token' });
    expect(verifyJwt(token(HS256, { iat: iat + 61 }), SECRET, NOW)).toEqual({ ok: false, reason: 'future token' });
  });

  it('rejects missing iat, expired exp, wrong secret, other algorithms and malformed tokens', () => {
    const iat = NOW / 1000;
    expect(verifyJwt(token(HS256, {}), SECRET, NOW)).toEqual({ ok: false, reason: 'missing issued-at' });
    expect(verifyJwt(token(HS256, { iat, exp: iat - 1 }), SECRET, NOW)).toEqual({
      ok: false,
      reason: 'token is expired',
    });
    expect(verifyJwt(token(HS256, { iat }, randomBytes(32)), SECRET, NOW)).toEqual({
      ok: false,
      reason: 'signature is invalid',
    });
    expect(verifyJwt(`${b64({ alg: 'none' })}.${b64({ iat })}.`, SECRET, NOW)).toEqual({
      ok: false,
      reason: 'signing method none is invalid',
    });
    expect(verifyJwt(token({ alg: 'HS512' }, { iat }), SECRET, NOW)).toEqual({
      ok: false,
      reason: 'signing method HS512 is invalid',
    });
    expect(verifyJwt('a.b', SECRET, NOW)).toEqual({
      ok: false,
      reason: 'token contains an invalid number of segments',
    });
    expect(verifyJwt(`${b64('{')}.${b64({ iat })}.x`, SECRET, NOW).ok).toBe(false);
    expect(verifyJwt(token(HS256, { iat: 'yesterday' }), SECRET, NOW).ok).toBe(false);
  });

  it('reads the bearer scheme case-insensitively and reports a missing token', () => {
    const t = signJwt(SECRET);
    expect(checkAuthorization(`Bearer ${t}`, SECRET)).toBeUndefined();
    expect(checkAuthorization(`bearer ${t}`, SECRET)).toBeUndefined();
    expect(checkAuthorization(undefined, SECRET)).toBe('missing token');
    expect(checkAuthorization('Basic abc', SECRET)).toBe('missing token');
    expect(checkAuthorization('Bearer ', SECRET)).toBe('missing token');
  });

  it('refuses secrets that are not 32 bytes', () => {
    expect(() => signJwt(new Uint8Array(16))).toThrow(RangeError);
  });
});

describe('authenticated endpoint', () => {
  const servers: HttpRpcServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  async function start() {
    const { registry } = testRegistry();
    const server = createAuthRpcServer(
      { host: '127.0.0.1', port: 0, jwtSecret: SECRET },
      { registry, logger: recordingLogger() },
    );
    servers.push(server);
    return server.start();
  }

  const CALL = '{"jsonrpc":"2.0","id":1,"method":"engine_exchangeCapabilities"}';

  it('serves engine methods with a valid token and answers 401 with a reason otherwise', async () => {
    const { url } = await start();
    const ok = await postJson(url, CALL, { authorization: `Bearer ${signJwt(SECRET)}` });
    expect(ok.text).toBe('{"jsonrpc":"2.0","id":1,"result":["engine_x"]}');
    const cases: [Record<string, string>, string][] = [
      [{}, 'missing token\n'],
      [{ authorization: `Bearer ${signJwt(randomBytes(32))}` }, 'signature is invalid\n'],
      [{ authorization: `Bearer ${signJwt(SECRET, {}, Date.now() - 120_000)}` }, 'stale token\n'],
      [{ authorization: `Bearer ${signJwt(SECRET, {}, Date.now() + 120_000)}` }, 'future token\n'],
      [
        { authorization: `Bearer ${b64({ alg: 'none' })}.${b64({ iat: Math.floor(Date.now() / 1000) })}.` },
        'signing method none is invalid\n',
      ],
    ];
    for (const [headers, body] of cases) {
      const res = await postJson(url, CALL, headers);
      expect([res.status, res.text]).toEqual([401, body]);
    }
  });

  it('does not compress (geth disables gzip on the authenticated endpoint)', async () => {
    const { url } = await start();
    const res = await postJson(url, CALL, { authorization: `Bearer ${signJwt(SECRET)}`, 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('checks the token on WebSocket upgrades too', async () => {
    const { url } = await start();
    const wsUrl = url.replace('http', 'ws');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(wsUrl, { headers });
        ws.once('open', () => {
          ws.terminate();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        ws.once('error', reject);
      });
    expect(await status({ authorization: `Bearer ${signJwt(SECRET)}` })).toBe(101);
    expect(await status({})).toBe(401);
    expect(await status({ authorization: `Bearer ${signJwt(randomBytes(32))}` })).toBe(401);
  });
});
