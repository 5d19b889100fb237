// Client of a DA server (op-alt-da's DAClient wire protocol, see server.ts). Reads verify keccak commitments
// against the returned data when asked to; writes either precompute a keccak commitment (`/put/0x…`) or let the
// server choose one (`/put`, the DA-service mode). Every failure is a TernError whose code says what went wrong.
import { TernError } from '../../primitives/errors.js';
import { type Commitment, commitmentHex, decodeCommitment, keccakCommitment, verifyCommitment } from './commitment.js';

export interface DaClientOptions {
  /** Base URL of the DA server, without a trailing slash. */
  url: string;
  /** Check keccak commitments against the data read (--altda.verify-on-read). */
  verifyOnRead?: boolean;
  /** The server computes commitments (--altda.da-service); otherwise keccak commitments are precomputed. */
  daService?: boolean;
  /** Milliseconds; 0 means none. */
  getTimeoutMs?: number;
  putTimeoutMs?: number;
}

/** The server does not have the data (HTTP 404). */
export const ALTDA_NOT_FOUND = 'ALTDA_NOT_FOUND';
/** The data does not match its commitment. */
export const ALTDA_MISMATCH = 'ALTDA_COMMITMENT_MISMATCH';
/** The server could not be reached, timed out or answered with another error. */
export const ALTDA_UNAVAILABLE = 'ALTDA_UNAVAILABLE';

function signal(ms: number | undefined): AbortSignal | undefined {
  return ms !== undefined && ms > 0 ? AbortSignal.timeout(ms) : undefined;
}

function reason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'timed out';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

export class DaClient {
  readonly url: string;

  constructor(private readonly opts: DaClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
  }

  async getInput(c: Commitment): Promise<Uint8Array> {
    const key = commitmentHex(c);
    let res: Response;
    let body: Uint8Array;
    try {
      res = await fetch(`${this.url}/get/${key}`, { signal: signal(this.opts.getTimeoutMs) });
      body = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      throw new TernError(ALTDA_UNAVAILABLE, `DA server ${this.url}: get ${key}: ${reason(err)}`, { cause: err });
    }
    if (res.status === 404) throw new TernError(ALTDA_NOT_FOUND, `DA server ${this.url} has no input for ${key}`);
    if (res.status !== 200) {
      throw new TernError(ALTDA_UNAVAILABLE, `DA server ${this.url}: get ${key}: HTTP ${res.status}`);
    }
    if ((this.opts.verifyOnRead ?? true) && !verifyCommitment(c, body)) {
      throw new TernError(ALTDA_MISMATCH, `DA server ${this.url} returned data not matching commitment ${key}`);
    }
    return body;
  }

  /** Stores `input`; returns the commitment to post on L1. */
  async setInput(input: Uint8Array): Promise<Commitment> {
    if (input.length === 0) throw new TernError('ALTDA_INPUT_EMPTY', 'alt-DA input is empty');
    const precomputed = this.opts.daService ? undefined : keccakCommitment(input);
    const path = precomputed === undefined ? '/put' : `/put/${commitmentHex(precomputed)}`;
    let res: Response;
    let body: Uint8Array;
    try {
      res = await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: input,
        signal: signal(this.opts.putTimeoutMs),
      });
      body = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      throw new TernError(ALTDA_UNAVAILABLE, `DA server ${this.url}: put: ${reason(err)}`, { cause: err });
    }
    if (res.status !== 200) throw new TernError(ALTDA_UNAVAILABLE, `DA server ${this.url}: put: HTTP ${res.status}`);
    if (precomputed !== undefined) return precomputed;
    try {
      return decodeCommitment(body);
    } catch (err) {
      throw new TernError(ALTDA_UNAVAILABLE, `DA server ${this.url} answered an invalid commitment`, { cause: err });
    }
  }
}
