// --signer: an external signer speaking geth's clef protocol (accounts/external), over HTTP(S)/WS by URL or IPC by
// socket path. At startup account_version must answer (else startup fails, as geth's "error connecting to external
// signer"); eth_accounts asks account_list each time (a failure logs and lists nothing); eth_sign is
// account_signData with "text/plain"; transactions go to account_signTransaction as clef's SendTxArgs and the
// signer's "raw" encoding is used. Addresses go out EIP-55 checksummed, as geth's MixedcaseAddress marshals them.
// No timeout: a clef user may take as long as they like to approve.
import { toChecksumAddress } from '@ethereumjs/util';
import { ReportedError, TernError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/index.js';
import { toHex as hex } from '../../../primitives/bytes.js';
import { type ConsoleTransport, openTransport } from '../../console/transport.js';
import type { AccountBackend, FilledTx } from '../backend.js';

const qty = (n: bigint) => `0x${n.toString(16)}`;

/** accounts.MimetypeTextPlain: clef signs it as an EIP-191 personal message. */
export const MIME_TEXT_PLAIN = 'text/plain';

function signerError(what: string, err: unknown): TernError {
  return new TernError('EXTERNAL_SIGNER', `${what}: ${(err as Error).message}`);
}

function bytesOf(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new TernError('EXTERNAL_SIGNER', `external signer answered ${what} that is not hex bytes`);
  return Uint8Array.from(Buffer.from(value.slice(2), 'hex'));
}

/** clef's SendTxArgs for a filled transaction, as geth's ExternalSigner.SignTx builds them. */
export function sendTxArgs(filled: FilledTx): Record<string, unknown> {
  const a = filled.args;
  if (filled.type === 3) throw new TernError('EXTERNAL_SIGNER', 'blobs must be present for signing');
  if (filled.type === 4) throw new TernError('EXTERNAL_SIGNER', 'the external signer protocol has no set-code fields');
  const args: Record<string, unknown> = {
    from: toChecksumAddress(hex(a.from)),
    to: a.to === undefined ? null : toChecksumAddress(hex(a.to)),
    gas: qty(a.gas),
    value: qty(a.value),
    nonce: qty(a.nonce),
    input: hex(a.input ?? new Uint8Array(0)),
    chainId: qty(a.chainId),
  };
  if (filled.type === 0 || filled.type === 1) args.gasPrice = qty(a.gasPrice ?? 0n);
  else {
    args.maxFeePerGas = qty(a.maxFeePerGas ?? 0n);
    args.maxPriorityFeePerGas = qty(a.maxPriorityFeePerGas ?? 0n);
  }
  if (filled.type !== 0)
    args.accessList = (a.accessList ?? []).map(([address, keys]) => ({
      address: toChecksumAddress(hex(address)),
      storageKeys: keys.map(hex),
    }));
  return args;
}

export class ExternalSigner implements AccountBackend {
  #cache: string[] = [];

  private constructor(
    readonly endpoint: string,
    readonly version: string,
    private readonly transport: ConsoleTransport,
    private readonly logger: Logger,
  ) {}

  /** Connects and pings account_version; a signer that does not answer stops startup. */
  static async connect(endpoint: string, deps: { logger: Logger }): Promise<ExternalSigner> {
    let transport: ConsoleTransport;
    try {
      transport = await openTransport(endpoint);
    } catch (err) {
      throw new ReportedError(`error connecting to external signer ${endpoint}: ${(err as Error).message}`, err);
    }
    let version: unknown;
    try {
      version = await transport.call('account_version', []);
    } catch (err) {
      await transport.close();
      throw new ReportedError(`error connecting to external signer ${endpoint}: ${(err as Error).message}`, err);
    }
    const signer = new ExternalSigner(endpoint, String(version), transport, deps.logger);
    deps.logger.info('Using external signer', { url: endpoint, version: signer.version });
    return signer;
  }

  async accounts(): Promise<string[]> {
    try {
      const list = await this.transport.call('account_list', []);
      if (!Array.isArray(list)) throw new Error('account_list did not answer a list');
      this.#cache = list.map((a) => hex(bytesOf(a, 'an account')).toLowerCase());
      for (const a of this.#cache)
        if (a.length !== 42) throw new Error(`account_list answered ${a}, which is not an address`);
    } catch (err) {
      this.logger.error('account listing failed', { error: (err as Error).message, endpoint: this.endpoint });
      this.#cache = [];
    }
    return [...this.#cache];
  }

  knownAccounts(): string[] {
    return [...this.#cache];
  }

  async checkCanSign(address: string): Promise<void> {
    const a = address.toLowerCase();
    // geth's Contains: the cached list, filled on first use.
    if (!this.#cache.includes(a)) await this.accounts();
    if (!this.#cache.includes(a)) throw new TernError('ACCOUNT_UNKNOWN', 'unknown account');
  }

  async signText(address: string, message: Uint8Array): Promise<Uint8Array> {
    await this.checkCanSign(address);
    let answer: unknown;
    try {
      answer = await this.transport.call('account_signData', [
        MIME_TEXT_PLAIN,
        toChecksumAddress(address),
        hex(message),
      ]);
    } catch (err) {
      throw signerError('external signer refused to sign', err);
    }
    const sig = bytesOf(answer, 'a signature');
    if (sig.length !== 65)
      throw new TernError('EXTERNAL_SIGNER', `external signer answered a ${sig.length}-byte signature`);
    // clef answers v as 27/28 already; a signer answering 0/1 is brought to eth_sign's 27/28.
    if ((sig[64] as number) < 27) sig[64] = (sig[64] as number) + 27;
    return sig;
  }

  async signTransaction(filled: FilledTx): Promise<Uint8Array> {
    const args = sendTxArgs(filled);
    let answer: unknown;
    try {
      answer = await this.transport.call('account_signTransaction', [args]);
    } catch (err) {
      throw signerError('external signer refused to sign', err);
    }
    const raw = (answer as { raw?: unknown } | null)?.raw;
    return bytesOf(raw, 'a transaction');
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
