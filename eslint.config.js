// ESLint flat config: the recommended JavaScript and TypeScript rules, without type-aware
// rules so that linting stays fast enough to run with every test run.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint/layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'dist.*/', 'node_modules/', 'coverage/', '.ctl-sim/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { ctl: layers },
    rules: { 'ctl/layers': 'error' },
  },
  {
    // The build makes test/helpers/simulator.ts one file of the simulator and its packages
    // (scripts/bundle-simulator.mjs): a test that imported src/sim beside it would load the
    // simulator twice. The simulator's own unit tests (test/unit, test/sim) import its parts.
    files: ['test/e2e/**/*.ts', 'test/reliability/**/*.ts', 'test/worlds/**/*.ts', 'test/helpers/**/*.ts'],
    ignores: ['test/helpers/simulator.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/sim/*', '**/src/sim/**'],
              allowTypeImports: true,
              message: 'import the simulator from test/helpers/simulator.js (one bundled file)',
            },
          ],
        },
      ],
    },
  },
);
