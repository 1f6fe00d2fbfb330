// Lint: typescript-eslint's recommended rules and Svelte's, without type-aware rules (fast on 2 cores),
// and the layer boundaries of docs/architecture.md (eslint/layers.js).
import js from '@eslint/js';
import ts from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import layers from './eslint/layers.js';

export default ts.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'public/', 'test-results/', 'recipes/'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.svelte'],
    plugins: { turnwise: layers },
    rules: { 'turnwise/layers': 'error' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser } },
  },
);
