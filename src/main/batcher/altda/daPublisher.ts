// tern-batcher's alt-DA mode (op-batcher with --altda.enabled): each batcher transaction's payload (derivation
// version byte 0 ++ frames) is stored on the DA server first, and only the commitment (version byte 1 ++
// encoded commitment) goes to L1 as calldata. At most --altda.max-concurrent-da-requests puts run at once; a put
// that fails leaves the frames to be sent again (the caller marks the transaction failed).
import { DaClient } from '../../altda/client.js';
import { commitmentHex, commitmentTxData } from '../../altda/commitment.js';
import type { Settings } from '../../cli/parse.js';
import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';

export interface DaPublisherOptions {
  url: string;
  daService: boolean;
  putTimeoutMs: number;
  maxConcurrent: number;
}

export class DaPublisher {
  private readonly client: DaClient;
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly opts: DaPublisherOptions,
    private readonly log: Logger,
  ) {
    this.client = new DaClient({ url: opts.url, daService: opts.daService, putTimeoutMs: opts.putTimeoutMs });
  }

  /** Stores `payload` on the DA server; returns the calldata to post on L1. */
  async publish(payload: Uint8Array): Promise<Uint8Array> {
    if (this.active >= Math.max(1, this.opts.maxConcurrent)) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
    this.active++;
    try {
      const comm = await this.client.setInput(payload);
      this.log.debug('alt-DA input stored', { comm: commitmentHex(comm), bytes: payload.length });
      return commitmentTxData(comm);
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/** undefined when --altda.enabled is off; throws UsageError on settings alt-DA cannot work with. */
export function daPublisherFromSettings(s: Settings, log: Logger): DaPublisher | undefined {
  if (!s.get<boolean>('altda.enabled')) return undefined;
  const url = s.get<string | undefined>('altda.da-server');
  if (url === undefined || url === '') throw new UsageError('--altda.enabled needs --altda.da-server');
  if (s.get<string>('data-availability-type') !== 'calldata') {
    throw new UsageError('--altda.enabled posts commitments as calldata: set --data-availability-type=calldata');
  }
  return new DaPublisher(
    {
      url,
      daService: s.get<boolean>('altda.da-service'),
      putTimeoutMs: s.get<number>('altda.put-timeout'),
      maxConcurrent: s.get<number>('altda.max-concurrent-da-requests'),
    },
    log.child('altda'),
  );
}
