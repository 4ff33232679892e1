import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** One scripted answer: a chat completion whose message content is `content`, or an HTTP error, after an optional delay. */
export type ScriptedAnswer = { content: string; delayMs?: number } | { status: number; delayMs?: number };

export interface ScriptedModel {
  url: string;
  /** Answers to give, in order; once they are used up, every request gets `fallback`. */
  script(...answers: ScriptedAnswer[]): void;
  fallback: ScriptedAnswer;
  /** The chat-completion requests received (their JSON bodies). */
  requests: Array<{ model: string; messages: Array<{ role: string; content: string }>; response_format?: unknown }>;
  reset(): void;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((done) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => done(body));
  });

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 that answers
 * what the test scripts. Registered before useApiServer, it puts its URL
 * and a model name into `env` (OPENAI_BASE_URL, OPENAI_MODEL) before the
 * service starts.
 */
export function useScriptedModel(env: Record<string, string>): ScriptedModel {
  let queue: ScriptedAnswer[] = [];
  const model: ScriptedModel = {
    url: '',
    requests: [],
    fallback: { status: 503 },
    script: (...answers) => void queue.push(...answers),
    reset: () => {
      queue = [];
      model.requests.length = 0;
      model.fallback = { status: 503 };
    },
  };
  let server: Server;
  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const body = await readBody(req);
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
      const request = JSON.parse(body);
      model.requests.push(request);
      const answer = queue.shift() ?? model.fallback;
      if (answer.delayMs) await new Promise((done) => setTimeout(done, answer.delayMs));
      if ('status' in answer) return void res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure' } }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${model.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    env.OPENAI_BASE_URL = model.url;
    env.OPENAI_MODEL = 'test-model';
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  return model;
}
