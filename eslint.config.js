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
  {
    files: ['apps/web/src/**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // Mantine's Loader is a span and its Skeleton a div: named, they need a role (docs/web-app.md, "Loading states are checked too").
          selector:
            "JSXOpeningElement[name.name=/^(Loader|Skeleton)$/]:has(JSXAttribute[name.name='aria-label']):not(:has(JSXAttribute[name.name='role']))",
          message:
            'A Loader or Skeleton with an aria-label needs role="status" (axe: aria-prohibited-attr); or use LoadingSpinner from src/ui.',
        },
      ],
    },
  },
);
