// Checks of tern-exec's special value formats. Each gets the parsed value of its flag's kind and returns a message
// (without the flag name) when the value is wrong.
import { isIP } from 'node:net';
import type { FlagValue } from '../flag.js';

const HOSTNAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const UINT64_MAX = (1n << 64n) - 1n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function isHostName(text: string): boolean {
  return isIP(text) !== 0 || HOSTNAME.test(text);
}

function isPortText(text: string, allowZero: boolean): boolean {
  if (!/^\d{1,5}$/.test(text)) return false;
  const n = Number(text);
  return n <= 65535 && (allowZero || n > 0);
}

/** `host:port` where host is an IPv4 address, a bracketed IPv6 address or (when allowed) a host name. */
function splitHostPort(text: string): [string, string] | undefined {
  const v6 = /^\[([^\]]+)\]:([^:]*)$/.exec(text);
  if (v6) return isIP(v6[1] as string) === 6 ? [v6[1] as string, v6[2] as string] : undefined;
  const i = text.lastIndexOf(':');
  if (i <= 0) return undefined;
  const host = text.slice(0, i);
  if (host.includes(':')) return undefined; // an IPv6 address must be bracketed
  return [host, text.slice(i + 1)];
}

function items(value: FlagValue): string[] {
  return Array.isArray(value) ? (value as string[]) : [String(value)];
}

/** `--nat`: `any`, `none`, `upnp`, `pmp`, `pmp:<IP>`, `extip:<IP>`, `stun:<IP:PORT>`. */
export function checkNat(value: FlagValue): string | undefined {
  const s = String(value).trim();
  if (s === 'any' || s === 'none' || s === 'upnp' || s === 'pmp') return undefined;
  const usage = 'expected any, none, upnp, pmp, pmp:<IP>, extip:<IP> or stun:<IP:PORT>';
  const i = s.indexOf(':');
  if (i < 0) return `unknown NAT mechanism "${s}" (${usage})`;
  const mech = s.slice(0, i);
  const arg = s.slice(i + 1);
  if (mech === 'pmp' || mech === 'extip') {
    return isIP(arg) !== 0 ? undefined : `"${arg}" is not an IP address (${usage})`;
  }
  if (mech === 'stun') {
    const hp = splitHostPort(arg);
    if (hp === undefined || isIP(hp[0]) === 0 || !isPortText(hp[1], false)) {
      return `"${arg}" is not an IP:PORT STUN server address (${usage})`;
    }
    return undefined;
  }
  return `unknown NAT mechanism "${mech}" (${usage})`;
}

/** `--ethstats`: `nodename:secret@host:port`. */
export function checkEthstats(value: FlagValue): string | undefined {
  const s = String(value).trim();
  const usage = 'expected nodename:secret@host:port';
  const at = s.indexOf('@');
  if (at < 0) return `missing "@host:port" (${usage})`;
  const cred = s.slice(0, at);
  const colon = cred.indexOf(':');
  if (colon <= 0) return `missing node name or secret before "@" (${usage})`;
  if (colon === cred.length - 1) return `empty secret (${usage})`;
  const hp = splitHostPort(s.slice(at + 1));
  if (hp === undefined || !isHostName(hp[0])) return `"${s.slice(at + 1)}" is not host:port (${usage})`;
  if (!isPortText(hp[1], false)) return `"${hp[1]}" is not a port (${usage})`;
  return undefined;
}

/** `--eth.requiredblocks`: comma list of `<number>=<0x hash>`. */
export function checkRequiredBlocks(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^(\d+)=(0x[0-9a-fA-F]{64})$/.exec(item);
    if (!m) return `"${item}" is not <number>=<0x-prefixed 32-byte hash>`;
    if (BigInt(m[1] as string) > UINT64_MAX) return `block number ${m[1]} is out of range`;
  }
  return undefined;
}

/** `--log.vmodule`: comma list of `<pattern>=<level>`, level 0-5. */
export function checkVmodule(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^([^=\s]+)=(\S*)$/.exec(item);
    if (!m) return `"${item}" is not <pattern>=<level>`;
    if (!/^[0-5]$/.test(m[2] as string)) return `"${m[2]}" in "${item}" is not a level 0-5`;
  }
  return undefined;
}

/** `--metrics.tsdb.tags`: comma list of `key=value`. */
export function checkTags(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^([^=]*)=([^=]*)$/.exec(item);
    if (!m || (m[1] as string).trim() === '' || (m[2] as string).trim() === '') return `"${item}" is not key=value`;
  }
  return undefined;
}

/** `--txpool.locals`: comma list of 0x-prefixed 20-byte addresses. */
export function checkAddresses(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(item)) return `"${item}" is not a 0x-prefixed 20-byte account address`;
  }
  return undefined;
}

/** `--nodekeyhex`: a usable secp256k1 private key (after the hex32 kind has normalised it to 0x + 64 hex). */
export function checkNodeKey(value: FlagValue): string | undefined {
  const k = BigInt(String(value));
  return k > 0n && k < SECP256K1_N ? undefined : 'not a valid secp256k1 private key (must be 0 < key < curve order)';
}

/** `--bootnodes`: comma list of `enode://<128 hex>@<host>:<port>[?discport=<port>]` URLs or `enr:` records. */
export function checkBootnodes(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    if (/^enr:[A-Za-z0-9_-]+$/.test(item)) continue;
    const m = /^enode:\/\/[0-9a-fA-F]{128}@([^?]+?)(\?discport=(\d+))?$/.exec(item);
    const hp = m ? splitHostPort(m[1] as string) : undefined;
    if (
      m === null ||
      hp === undefined ||
      !isHostName(hp[0]) ||
      !isPortText(hp[1], true) ||
      (m[3] !== undefined && !isPortText(m[3], true))
    ) {
      return `"${item}" is not an enode://<node id>@<host>:<port> URL or an enr: record`;
    }
  }
  return undefined;
}

/** `--discovery.dns`: comma list of `enrtree://<public key>@<domain>`. */
export function checkDnsDiscovery(value: FlagValue): string | undefined {
  for (const item of items(value)) {
    const m = /^enrtree:\/\/[A-Za-z2-7]+@(.+)$/.exec(item);
    if (!m || !HOSTNAME.test(m[1] as string)) return `"${item}" is not an enrtree://<public key>@<domain> URL`;
  }
  return undefined;
}

/** `--http.rpcprefix`, `--ws.rpcprefix`: a URL path starting with `/`, without `?` or `#`. */
export function checkRpcPrefix(value: FlagValue): string | undefined {
  const s = String(value);
  if (s === '') return undefined;
  if (!s.startsWith('/')) return `path prefix "${s}" must start with "/"`;
  if (/[?#]/.test(s)) return `path prefix "${s}" may not contain "?" or "#"`;
  return undefined;
}
