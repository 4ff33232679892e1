// ESLint decides what may not be written; Prettier decides layout (eslint-config-prettier turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'data/', 'coverage/', 'src/http/docs-assets/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='procedures'][object.property.name='_def']",
          message: "A router's procedures are read through procedureDefs (src/trpc/procedure-defs.ts), from its public shape.",
        },
      ],
    },
  },
  {
    // Untyped on purpose: tests and benches read JSON answers, and the GraphQL schema is built from zod at run time
    // (Pothos's builder and zod's internals have no static type for a schema derived that way).
    files: ['test/**', 'bench/**', 'src/http/surfaces/graphql/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
