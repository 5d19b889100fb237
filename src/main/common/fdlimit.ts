// The process's open-file limit (RLIMIT_NOFILE): read and set through the native module (getrlimit/setrlimit), or,
// without it, through /proc/self/limits and util-linux's `prlimit --pid <pid> --nofile=N:`. The JS twins are
// exported so tests run both paths. raiseFdLimit is geth's fdlimit.Raise policy for tern-exec's --fdlimit.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { nativeFunction } from '../native/index.js';
import { TernError } from './errors.js';

export interface FdLimit {
  /** The soft (enforced) limit; Infinity for unlimited. */
  soft: number;
  /** The hard limit, the most the soft one may be raised to without privileges; Infinity for unlimited. */
  hard: number;
}

export const FdLimitErrorCode = {
  /** Neither the native module nor /proc or prlimit could read or set the limit. */
  unsupported: 'FDLIMIT_UNSUPPORTED',
  /** The operating system refused the new limit. */
  failed: 'FDLIMIT_FAILED',
} as const;

function checkSoft(soft: number): void {
  if (!(soft === Number.POSITIVE_INFINITY || (Number.isInteger(soft) && soft >= 0)))
    throw Object.assign(new TypeError(`setFdLimit: soft must be a non-negative integer or Infinity, got ${soft}`), {
      code: 'ERR_INVALID_ARG_VALUE',
    });
}

const limitValue = (s: string): number =>
  s === 'unlimited' || s === 'infinity' ? Number.POSITIVE_INFINITY : Number(s);

/** Parses the "Max open files" row of /proc/<pid>/limits. */
export function parseProcLimits(text: string): FdLimit | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (m === null) return undefined;
  const soft = limitValue(m[1] as string);
  const hard = limitValue(m[2] as string);
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}

function runPrlimit(args: string[]): string {
  try {
    return execFileSync('prlimit', ['--pid', String(process.pid), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new TernError(
        FdLimitErrorCode.unsupported,
        'cannot change the open-file limit: the native module is not built and prlimit (util-linux) is not installed',
      );
    const detail = (e.stderr ?? '').trim() || e.message;
    throw new TernError(FdLimitErrorCode.failed, `prlimit ${args.join(' ')}: ${detail}`);
  }
}

/** {@link getFdLimit} without the native module: /proc/self/limits, else `prlimit --pid <pid> --nofile`. */
export function getFdLimitJs(): FdLimit {
  let text: string | undefined;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    text = undefined;
  }
  const fromProc = text === undefined ? undefined : parseProcLimits(text);
  if (fromProc !== undefined) return fromProc;
  const out = runPrlimit(['--nofile', '--raw', '--noheadings', '--output', 'SOFT,HARD']).trim().split(/\s+/);
  const soft = limitValue(out[0] ?? '');
  const hard = limitValue(out[1] ?? '');
  if (Number.isNaN(soft) || Number.isNaN(hard))
    throw new TernError(
      FdLimitErrorCode.unsupported,
      `cannot read the open-file limit (prlimit said "${out.join(' ')}")`,
    );
  return { soft, hard };
}

/** {@link setFdLimit} without the native module: `prlimit --pid <pid> --nofile=<soft>:` (the hard limit stays). */
export function setFdLimitJs(soft: number): FdLimit {
  checkSoft(soft);
  runPrlimit([`--nofile=${soft === Number.POSITIVE_INFINITY ? 'unlimited' : soft}:`]);
  return getFdLimitJs();
}

const nativeGet = nativeFunction('getFdLimit');
const nativeSet = nativeFunction('setFdLimit');

function nativeError(err: unknown): unknown {
  if (err instanceof Error && (err as NodeJS.ErrnoException).code === 'ERR_FDLIMIT')
    return new TernError(FdLimitErrorCode.failed, err.message);
  return err;
}

/** The open-file limits of this process. */
export function getFdLimit(): FdLimit {
  if (nativeGet === undefined) return getFdLimitJs();
  try {
    return nativeGet();
  } catch (err) {
    throw nativeError(err);
  }
}

/**
 * Sets the soft open-file limit (the hard one stays) and returns the limits read back. Above the hard limit the
 * operating system refuses: TernError FDLIMIT_FAILED.
 */
export function setFdLimit(soft: number): FdLimit {
  if (nativeSet === undefined) return setFdLimitJs(soft);
  try {
    return nativeSet(soft);
  } catch (err) {
    throw nativeError(err);
  }
}

export interface RaisedFdLimit {
  /** The soft limit now in force. */
  limit: number;
  /** The hard limit (the most it could be raised to). */
  hard: number;
  /** What was asked for (undefined: the hard limit). */
  requested: number | undefined;
  /** The request was above the hard limit, so the hard limit was used (geth: "Requested file descriptors denied by OS"). */
  capped: boolean;
  /** The request was below {@link MIN_FD_LIMIT}, so the hard limit was used (geth: "File descriptor limit invalid"). */
  invalid: boolean;
}

/** Requests below this are unhealthy and ignored, as geth's MakeDatabaseHandles ignores them. */
export const MIN_FD_LIMIT = 128;

/**
 * geth's --fdlimit (cmd/utils MakeDatabaseHandles with fdlimit.Raise): sets the soft limit to `requested`, or to the
 * hard limit when nothing (or 0) is requested. A request above the hard limit is capped to it (`capped`), one below
 * 128 is ignored (`invalid`). A request below the current soft limit lowers it, as geth's Raise does. An unlimited
 * hard limit with nothing requested leaves the soft limit as it is (there is no finite target to raise to).
 */
export function raiseFdLimit(
  requested: number | undefined,
  impl: { get: () => FdLimit; set: (soft: number) => FdLimit } = { get: getFdLimit, set: setFdLimit },
): RaisedFdLimit {
  const now = impl.get();
  const asked = requested === 0 ? undefined : requested;
  const invalid = asked !== undefined && asked < MIN_FD_LIMIT;
  const capped = asked !== undefined && !invalid && asked > now.hard;
  const target = asked === undefined || invalid || capped ? now.hard : asked;
  const result = { requested: asked, capped, invalid };
  if (target === now.soft || !Number.isFinite(target)) return { limit: now.soft, hard: now.hard, ...result };
  const after = impl.set(target);
  return { limit: after.soft, hard: after.hard, ...result };
}
