// Request checks of geth's HTTP stack (node/rpcstack.go, rpc/http.go, rpc/websocket.go): virtual hosts, CORS as
// the rs/cors v1.7.0 handler geth wraps applies it, WebSocket origins, path prefixes and content types.
import { isIP } from 'node:net';
import { hostname as osHostname } from 'node:os';

// ---- virtual hosts --------------------------------------------------------------------------------------------

/**
 * geth's virtualHostHandler: an empty Host header passes (browsers always send one); the host part (port
 * removed) passes when it is an IP address literal, when `*` is listed, or when it is listed (case-insensitive).
 */
export function vhostAllowed(vhosts: ReadonlySet<string>, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined || hostHeader === '') return true;
  const host = splitHostPortHost(hostHeader).toLowerCase();
  if (isIP(host) !== 0) return true;
  return vhosts.has('*') || vhosts.has(host);
}

/** Lower-cased set for vhostAllowed. */
export function vhostSet(vhosts: readonly string[]): ReadonlySet<string> {
  return new Set(vhosts.map((h) => h.toLowerCase()));
}

/** Go's net.SplitHostPort host part, falling back to the whole input when it does not split. */
function splitHostPortHost(hostPort: string): string {
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']');
    if (end !== -1 && /^:[0-9]*$/.test(hostPort.slice(end + 1)) && hostPort.slice(end + 1) !== '') {
      return hostPort.slice(1, end);
    }
    return hostPort;
  }
  const colon = hostPort.lastIndexOf(':');
  if (colon === -1) return hostPort;
  if (hostPort.indexOf(':') !== colon) return hostPort; // too many colons
  return hostPort.slice(0, colon);
}

// ---- CORS (rs/cors v1.7.0 with geth's options) ------------------------------------------------------------------

export interface CorsPolicy {
  all: boolean;
  origins: ReadonlySet<string>;
  wildcards: ReadonlyArray<{ prefix: string; suffix: string }>;
}

/** geth's options: the given origins, methods POST and GET, any header, max age 600 s. */
export function corsPolicy(domains: readonly string[]): CorsPolicy | undefined {
  if (domains.length === 0) return undefined; // geth disables CORS handling altogether
  const origins = new Set<string>();
  const wildcards: { prefix: string; suffix: string }[] = [];
  for (const d of domains) {
    const o = d.toLowerCase();
    if (o === '*') return { all: true, origins: new Set(), wildcards: [] };
    const star = o.indexOf('*');
    if (star >= 0) wildcards.push({ prefix: o.slice(0, star), suffix: o.slice(star + 1) });
    else origins.add(o);
  }
  return { all: false, origins, wildcards };
}

const CORS_METHODS: ReadonlySet<string> = new Set(['POST', 'GET']);
const CORS_MAX_AGE = '600';

function corsOriginAllowed(policy: CorsPolicy, origin: string): boolean {
  if (policy.all) return true;
  const o = origin.toLowerCase();
  if (policy.origins.has(o)) return true;
  return policy.wildcards.some(
    (w) => o.length >= w.prefix.length + w.suffix.length && o.startsWith(w.prefix) && o.endsWith(w.suffix),
  );
}

const corsMethodAllowed = (method: string): boolean => {
  const m = method.toUpperCase();
  return m === 'OPTIONS' || CORS_METHODS.has(m);
};

/** Header list as rs/cors parses it: comma separated, each name canonicalised (`content-type` → `Content-Type`). */
function canonicalHeaderList(list: string): string[] {
  return list
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '')
    .map((h) => h.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()));
}

export type HeaderSink = (name: string, value: string) => void;

/** A preflight request: OPTIONS with Access-Control-Request-Method. */
export function isPreflight(method: string, headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return method === 'OPTIONS' && first(headers['access-control-request-method']) !== '';
}

/** Preflight headers (answered 200 with no body whatever the outcome, as rs/cors v1.7.0 does). */
export function corsPreflightHeaders(
  policy: CorsPolicy,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  set: HeaderSink,
): void {
  set('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  const origin = first(headers.origin);
  if (origin === '' || !corsOriginAllowed(policy, origin)) return;
  const method = first(headers['access-control-request-method']);
  if (!corsMethodAllowed(method)) return;
  const requested = canonicalHeaderList(first(headers['access-control-request-headers']));
  set('Access-Control-Allow-Origin', policy.all ? '*' : origin);
  set('Access-Control-Allow-Methods', method.toUpperCase());
  if (requested.length > 0) set('Access-Control-Allow-Headers', requested.join(', '));
  set('Access-Control-Max-Age', CORS_MAX_AGE);
}

/** Headers of an actual (non-preflight) request. */
export function corsActualHeaders(
  policy: CorsPolicy,
  method: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  set: HeaderSink,
): void {
  set('Vary', 'Origin');
  const origin = first(headers.origin);
  if (origin === '' || !corsOriginAllowed(policy, origin) || !corsMethodAllowed(method)) return;
  set('Access-Control-Allow-Origin', policy.all ? '*' : origin);
}

function first(v: string | string[] | undefined): string {
  if (v === undefined) return '';
  return Array.isArray(v) ? (v[0] ?? '') : v;
}

// ---- WebSocket origins ------------------------------------------------------------------------------------------

export interface OriginPolicy {
  all: boolean;
  rules: ReadonlyArray<{ scheme: string; hostname: string; port: string } | undefined>;
}

/**
 * geth's wsHandshakeValidator: `*` allows every origin; an empty list allows `http://localhost` and
 * `http://<hostname>`; a rule may name a scheme, host and port, and each part it names must match.
 */
export function originPolicy(origins: readonly string[]): OriginPolicy {
  const specs = origins.filter((o) => o !== '');
  const all = specs.includes('*');
  const list = specs.length > 0 ? specs : ['http://localhost', `http://${osHostname()}`];
  return { all, rules: list.map((o) => parseOrigin(o)) };
}

/** Requests without an Origin header pass: only browsers are being guarded against. */
export function originAllowed(policy: OriginPolicy, originHeader: string | undefined): boolean {
  if (originHeader === undefined) return true;
  if (policy.all) return true;
  const browser = parseOrigin(originHeader.toLowerCase());
  if (!browser) return false;
  return policy.rules.some(
    (rule) =>
      rule !== undefined &&
      (rule.scheme === '' || rule.scheme === browser.scheme) &&
      (rule.hostname === '' || rule.hostname === browser.hostname) &&
      (rule.port === '' || rule.port === browser.port),
  );
}

/** geth's parseOriginURL over Go's url.Parse: scheme, host name and port of an origin or an origin rule. */
export function parseOrigin(origin: string): { scheme: string; hostname: string; port: string } | undefined {
  const lower = origin.toLowerCase();
  if (origin.includes('://')) {
    const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/.exec(lower);
    if (!m) return undefined;
    let authority = m[2] as string;
    const at = authority.lastIndexOf('@');
    if (at !== -1) authority = authority.slice(at + 1);
    let hostname = authority;
    let port = '';
    if (authority.startsWith('[')) {
      const end = authority.indexOf(']');
      if (end === -1) return undefined;
      hostname = authority.slice(1, end);
      const rest = authority.slice(end + 1);
      if (rest.startsWith(':')) port = rest.slice(1);
      else if (rest !== '') return undefined;
    } else {
      const colon = authority.lastIndexOf(':');
      if (colon !== -1) {
        hostname = authority.slice(0, colon);
        port = authority.slice(colon + 1);
      }
    }
    if (!/^[0-9]*$/.test(port)) return undefined;
    return { scheme: m[1] as string, hostname, port };
  }
  // No "://": Go parses "host:port" as scheme "host" with opaque "port", and a bare name as a path.
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(lower);
  if (scheme) {
    const rest = lower.slice((scheme[0] as string).length);
    const opaque = rest.startsWith('/') ? '' : (rest.split(/[?#]/)[0] as string);
    return { scheme: '', hostname: scheme[1] as string, port: opaque };
  }
  if (lower.startsWith(':')) return undefined; // missing protocol scheme
  const firstSegment = lower.split('/')[0] as string;
  if (firstSegment.includes(':')) return undefined; // first path segment in URL cannot contain colon
  return { scheme: '', hostname: origin, port: '' };
}

// ---- paths and content types ----------------------------------------------------------------------------------

/** geth's checkPath: no prefix serves only `/`; otherwise the path must start with the prefix. */
export function pathMatches(path: string, prefix: string): boolean {
  if (prefix === '') return path === '/';
  return path.startsWith(prefix);
}

/** Content types geth accepts for JSON-RPC over HTTP. */
const ACCEPTED_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/json-rpc',
  'application/jsonrequest',
]);

/** Media type of a Content-Type header (lower case, parameters dropped), undefined when malformed. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const mt = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(mt)) return undefined;
  return mt;
}

export function contentTypeAccepted(contentType: string | undefined): boolean {
  const mt = mediaType(contentType);
  return mt !== undefined && ACCEPTED_CONTENT_TYPES.has(mt);
}

/** geth's isWebsocket: `Upgrade: websocket` and a Connection header containing `upgrade`. */
export function isWebsocketUpgrade(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return (
    first(headers.upgrade).toLowerCase() === 'websocket' && first(headers.connection).toLowerCase().includes('upgrade')
  );
}
