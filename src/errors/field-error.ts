import { AppError } from './app-error.ts';

/**
 * A 400 validation_failed a service throws about its input, in the shape a
 * zod failure answers with (see toErrorResponse): `field` names the first
 * field, `issues` lists each as `{ field, message }`, and each message
 * starts with its field (`value: must be a number`).
 */
export function fieldError(...problems: [{ field: string; problem: string }, ...Array<{ field: string; problem: string }>]): AppError {
  const issues = problems.map(({ field, problem }) => ({ field, message: `${field}: ${problem}` }));
  return new AppError('validation_failed', `Invalid input: ${issues.map((i) => i.message).join('; ')}`, {
    field: issues[0]!.field,
    issues,
  });
}
