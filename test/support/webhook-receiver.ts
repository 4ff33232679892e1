import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { serveFixture, type FixtureSite } from './fixture-sites.ts';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
type Answer = { status: number; headers?: Record<string, string>; delayMs?: number };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The most requests under way at once since the last reset. */
  peakInFlight: number;
  /** Answers for the next requests, in order; then 204. */
  answer(...answers: Answer[]): void;
  /** Waits until `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  reset(): void;
}

/** A receiving endpoint on 127.0.0.1 that records every delivery and fails on command (a status, a delay past the timeout). */
export function useWebhookReceiver(): WebhookReceiver {
  let site: FixtureSite;
  let queue: Answer[] = [];
  let inFlight = 0;
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    peakInFlight: 0,
    answer: (...answers) => void queue.push(...answers),
    reset: () => {
      queue = [];
      receiver.received.length = 0;
      receiver.peakInFlight = 0;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`${receiver.received.length} of ${count} deliveries arrived in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return receiver.received.slice(0, count);
    },
  };
  beforeAll(async () => {
    site = await serveFixture(async (req, res) => {
      receiver.peakInFlight = Math.max(receiver.peakInFlight, ++inFlight);
      res.on('close', () => inFlight--);
      let body = '';
      for await (const chunk of req) body += chunk;
      receiver.received.push({ headers: req.headers, body, at: Date.now() });
      const answer = queue.shift() ?? { status: 204 };
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      res.writeHead(answer.status, answer.headers).end();
    });
    receiver.url = `${site.origin}/hooks`;
  });
  afterAll(() => site.close());
  return receiver;
}
