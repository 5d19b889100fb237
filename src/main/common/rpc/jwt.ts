// HS256 JSON Web Tokens for the Engine API (execution-apis `engine/authentication.md`), built on node:crypto.
// Verification follows geth's jwtHandler: only HS256, a valid signature, `exp` honoured when present, `iat`
// required and within ±60 s of now; `id` and `clv` claims are accepted and ignored. The reasons match geth's
// (golang-jwt) wording, since geth sends them as the 401 body.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The 32-byte shared secret size the Engine API requires. */
export const JWT_SECRET_BYTES = 32;
/** How far `iat` may be from now, either way (geth's jwtExpiryTimeout). */
export const JWT_IAT_WINDOW_SECONDS = 60;

export interface JwtClaims {
  /** Issued-at, seconds since the epoch. */
  iat?: number;
  /** Expiry, seconds since the epoch (optional). */
  exp?: number;
  /** Client instance id (optional). */
  id?: string;
  /** Client version (optional). */
  clv?: string;
  [claim: string]: unknown;
}

const HEADER_B64 = b64url(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })));

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function checkSecret(secret: Uint8Array): void {
  if (secret.length !== JWT_SECRET_BYTES) {
    throw new RangeError(`JWT secret must be ${JWT_SECRET_BYTES} bytes, got ${secret.length}`);
  }
}

function hmac(secret: Uint8Array, input: string): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

/** A fresh HS256 token; `iat` defaults to now (whole seconds). */
export function signJwt(secret: Uint8Array, claims: JwtClaims = {}, nowMs = Date.now()): string {
  checkSecret(secret);
  const body = { iat: Math.floor(nowMs / 1000), ...claims };
  const signingInput = `${HEADER_B64}.${b64url(Buffer.from(JSON.stringify(body)))}`;
  return `${signingInput}.${b64url(hmac(secret, signingInput))}`;
}

export type JwtVerdict = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

const B64URL = /^[A-Za-z0-9_-]*$/;

function decodeSegment(seg: string): Buffer | undefined {
  // golang-jwt v4 accepts unpadded base64url only.
  if (!B64URL.test(seg) || seg.length % 4 === 1) return undefined;
  return Buffer.from(seg, 'base64url');
}

function parseJsonObject(buf: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(buf.toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies a token as geth's authenticated endpoint does. */
export function verifyJwt(token: string, secret: Uint8Array, nowMs = Date.now()): JwtVerdict {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'token contains an invalid number of segments' };
  const [h, p, s] = parts as [string, string, string];
  const headerBytes = decodeSegment(h);
  if (!headerBytes) return { ok: false, reason: 'token is malformed: could not base64 decode header' };
  const header = parseJsonObject(headerBytes);
  if (!header) return { ok: false, reason: 'token is malformed: could not JSON decode header' };
  const claimBytes = decodeSegment(p);
  if (!claimBytes) return { ok: false, reason: 'token is malformed: could not base64 decode claim' };
  const claims = parseJsonObject(claimBytes) as JwtClaims | undefined;
  if (!claims) return { ok: false, reason: 'token is malformed: could not JSON decode claim' };
  for (const name of ['iat', 'exp'] as const) {
    const v = claims[name];
    if (v !== undefined && v !== null && typeof v !== 'number') {
      return { ok: false, reason: `token is malformed: ${name} is not a number` };
    }
  }
  const alg = header.alg;
  if (typeof alg !== 'string') return { ok: false, reason: 'signing method (alg) is unspecified' };
  if (alg !== 'HS256') return { ok: false, reason: `signing method ${alg} is invalid` };
  const signature = decodeSegment(s);
  const expected = hmac(secret, `${h}.${p}`);
  if (!signature || signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
    return { ok: false, reason: 'signature is invalid' };
  }
  const now = nowMs / 1000;
  if (typeof claims.exp === 'number' && now >= claims.exp) return { ok: false, reason: 'token is expired' };
  if (typeof claims.iat !== 'number') return { ok: false, reason: 'missing issued-at' };
  if (now - claims.iat > JWT_IAT_WINDOW_SECONDS) return { ok: false, reason: 'stale token' };
  if (claims.iat - now > JWT_IAT_WINDOW_SECONDS) return { ok: false, reason: 'future token' };
  return { ok: true, claims };
}

/**
 * Checks an Authorization header (`Bearer <token>`, scheme case-insensitive); undefined when it passes, else the
 * reason for the 401 answer.
 */
export function checkAuthorization(
  header: string | undefined,
  secret: Uint8Array,
  nowMs = Date.now(),
): string | undefined {
  let token = '';
  if (header !== undefined && header.length >= 7 && header.slice(0, 7).toLowerCase() === 'bearer ') {
    token = header.slice(7);
  }
  if (token.length === 0) return 'missing token';
  const verdict = verifyJwt(token, secret, nowMs);
  return verdict.ok ? undefined : verdict.reason;
}
