import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * One scripted answer, after an optional delay: a chat completion whose
 * message content is `content`, one that calls tools (`toolCalls`, with
 * `totalTokens` as its usage), or an HTTP error.
 */
export type ScriptedAnswer =
  | { content: string; delayMs?: number }
  | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>; totalTokens?: number; delayMs?: number }
  | { status: number; delayMs?: number };

export interface ScriptedModel {
  url: string;
  /** Answers to give, in order; once they are used up, every request gets `fallback`. */
  script(...answers: ScriptedAnswer[]): void;
  fallback: ScriptedAnswer;
  /** The chat-completion requests received (their JSON bodies). */
  requests: Array<{
    model: string;
    messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
    response_format?: unknown;
    tools?: Array<{ function: { name: string } }>;
  }>;
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
      if ('status' in answer)
        return void res
          .writeHead(answer.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'scripted failure' } }));
      res.writeHead(200, { 'content-type': 'application/json' });
      const n = model.requests.length;
      const message =
        'toolCalls' in answer
          ? {
              role: 'assistant',
              content: null,
              tool_calls: answer.toolCalls.map((call, i) => ({
                id: `call_${n}_${i}`,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : { role: 'assistant', content: answer.content };
      const total = 'toolCalls' in answer ? (answer.totalTokens ?? 2) : 2;
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: request.model,
          choices: [{ index: 0, message, finish_reason: 'toolCalls' in answer ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total },
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
