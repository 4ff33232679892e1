import OpenAI from 'openai';
import { settings } from '../config.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';

export interface ConfiguredModel {
  client: OpenAI;
  model: string;
}

/**
 * The OpenAI-compatible chat-completions server of OPENAI_BASE_URL and
 * OPENAI_MODEL, called through the outbound address guard; null when none
 * is configured (callers then use their built-in fallback). Retries are
 * the callers' (work left pending, a job started again), not the SDK's.
 */
export function configuredModel(): ConfiguredModel | null {
  const config = settings();
  if (!config.OPENAI_BASE_URL || !config.OPENAI_MODEL) return null;
  const client = new OpenAI({
    baseURL: config.OPENAI_BASE_URL,
    apiKey: config.OPENAI_API_KEY ?? 'unset',
    fetch: guardedFetch,
    maxRetries: 0,
    timeout: 60_000,
  });
  return { client, model: config.OPENAI_MODEL };
}
