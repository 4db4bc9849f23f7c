import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.payrun/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // Type-aware: a promise nobody awaits loses its error (and, in workflow code, its ordering). Slower
    // than the rest of the lint (it builds the TypeScript program), so only the rules that need types.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no clocks, no randomness, no I/O.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'http', 'https', 'crypto', 'undici', 'pino'],
              message: 'workflow code must stay deterministic',
            },
            {
              // src/domain is workflow-safe by its own rule below (issue 24).
              group: ['**/src/*', '!**/src/domain', '!**/src/domain/*', '**/activities/*'],
              message: 'workflows import only workflow-safe modules',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'use workflow time' },
      ],
    },
  },
  {
    // The domain is imported by workflows: pure, no I/O, nothing of payrun's but money.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'http', 'https', 'crypto', 'undici', 'pino'],
              message: 'src/domain is workflow-safe',
            },
            {
              group: ['../*', '!../money'],
              message: 'src/domain depends on nothing of payrun but src/money.ts',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { process: 'readonly', module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'scripts/**/*.js', 'src/cli/**/*.ts'],
    languageOptions: { globals: { console: 'readonly' } },
    rules: { 'no-console': 'off' },
  },
);
