// Durations in the notation op-node and op-geth use on their command lines (Go's time.Duration text):
// `6m24s`, `1h0m0s`, `500ms`, `1.5h`, `0s`. Values are carried as milliseconds.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses Go duration text into milliseconds; returns undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0' || s === '+0' || s === '-0') return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  let total = 0;
  for (const part of s.slice(m[1]?.length ?? 0).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] as string] as number);
  }
  if (!Number.isFinite(total)) return undefined;
  return sign * total;
}

/** Formats milliseconds the way Go prints a time.Duration: `1h0m0s`, `6m24s`, `30s`, `0s`, `1.5s`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = `${trimFloat(rest)}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const sec = `${trimFloat(rest / 1000)}s`;
    out = h > 0 ? `${h}h${m}m${sec}` : m > 0 ? `${m}m${sec}` : sec;
  }
  return neg ? `-${out}` : out;
}

function trimFloat(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(9)));
}
