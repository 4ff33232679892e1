import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Plan, PlanContext, Planner } from './planner.ts';
import { renderOutcome, systemPrompt } from './prompts.ts';
import { toolSpecs } from './tool-specs.ts';
import type { Step } from './transcript.ts';

/** A failure of the model's API: the job retries the step (three starts), then the run fails saying so. */
export class ModelUnavailableError extends Error {
  constructor(cause: unknown) {
    const status = (cause as { status?: number }).status;
    super(
      `the language model did not answer${status ? ` (HTTP ${status})` : ''}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`,
    );
    this.name = 'ModelUnavailableError';
  }
}

/** Each next step from an OpenAI-compatible chat-completions model with tool calling. */
export function modelPlanner({ client, model }: { client: OpenAI; model: string }): Planner {
  return {
    usesModel: true,
    async next(context: PlanContext): Promise<Plan> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create({ model, messages: messagesFor(context), tools: toolSpecs, tool_choice: 'auto' });
      } catch (error) {
        throw new ModelUnavailableError(error);
      }
      const message = completion.choices[0]?.message;
      const calls = (message?.tool_calls ?? []).flatMap((call) =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      );
      const tokens = completion.usage?.total_tokens ?? 0;
      // A model that answers in prose instead of calling `finish` has finished with that answer.
      if (calls.length === 0) {
        const summary = message?.content?.trim() || 'The model ended the run without a summary.';
        return {
          message: {
            content: null,
            tool_calls: [{ id: `finish-${context.steps.length}`, name: 'finish', arguments: JSON.stringify({ summary }) }],
          },
          tokens,
        };
      }
      return { message: { content: message?.content ?? null, tool_calls: calls }, tokens };
    },
  };
}

function messagesFor(context: PlanContext): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: systemPrompt(context) },
    { role: 'user', content: context.run.goal },
  ];
  for (const step of context.steps) messages.push(...stepMessages(step));
  return messages;
}

function stepMessages(step: Step): ChatCompletionMessageParam[] {
  if (step.kind === 'reply') return [{ role: 'user', content: step.answer }];
  return [
    {
      role: 'assistant',
      content: step.message.content,
      tool_calls: step.message.tool_calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    ...step.results.map((outcome) => ({ role: 'tool' as const, tool_call_id: outcome.tool_call_id, content: renderOutcome(outcome) })),
  ];
}
