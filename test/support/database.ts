import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/** A database of its own for each test file, on the run's FerretDB. */
export const freshDatabaseUri = () => `${inject('mongoServer')}/t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
