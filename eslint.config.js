import tseslint from 'typescript-eslint';

/** One lint setup for every workspace: typescript-eslint's recommended rules. */
export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '.data-test/**', 'e2e/artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
