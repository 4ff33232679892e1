import { describe, expect, it } from 'vitest';
import { compileJsonSchema } from '../../src/json-schema/json-schema.ts';

const schemaText = JSON.stringify({ type: 'object', properties: { page: { type: 'integer', minimum: 1 } }, required: ['page'] });

describe('compileJsonSchema', () => {
  it('compiles a stored schema once, however many freshly parsed copies arrive', () => {
    const first = compileJsonSchema(JSON.parse(schemaText), 'param_schema', 'query');
    const again = compileJsonSchema(JSON.parse(schemaText), 'param_schema', 'query');
    expect(again).toBe(first);
    expect(compileJsonSchema(JSON.parse(schemaText), 'output_schema')).not.toBe(first);
    const params = { page: '2' };
    expect(again(params)).toBe(true);
    expect(params).toEqual({ page: 2 });
  });

  it('keeps working past its cache size, compiling evicted schemas again', () => {
    const validators = Array.from({ length: 600 }, (_, n) =>
      compileJsonSchema({ type: 'object', properties: { [`f${n}`]: { type: 'string' } } }, 'output_schema'),
    );
    expect(validators[0]!({ f0: 'x' })).toBe(true);
    expect(validators[0]!({ f0: 1 })).toBe(false);
    const recompiled = compileJsonSchema({ type: 'object', properties: { f0: { type: 'string' } } }, 'output_schema');
    expect(recompiled({ f0: 1 })).toBe(false);
  });

  it('compiles two different schemas that carry the same $id (two workspaces may)', () => {
    const mine = compileJsonSchema({ $id: 'https://example.test/item', type: 'object', required: ['a'] }, 'output_schema');
    const theirs = compileJsonSchema({ $id: 'https://example.test/item', type: 'object', required: ['b'] }, 'output_schema');
    expect(mine({ a: 1 })).toBe(true);
    expect(theirs({ a: 1 })).toBe(false);
  });

  it('answers 400 naming the field for a schema that does not compile', () => {
    expect(() => compileJsonSchema({ type: 'no-such-type' }, 'output_schema')).toThrow(
      expect.objectContaining({ code: 'validation_failed', extra: { field: 'output_schema' } }),
    );
  });
});
