import tseslint from 'typescript-eslint';

/** One lint setup for every workspace: typescript-eslint's recommended rules. */
export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '.data-test/**', 'e2e/artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      // A file a newcomer can read in one sitting (docs/architecture.md): split by topic before it grows past this.
      'max-lines': ['error', { max: 399 }],
    },
  },
  {
    // Written by `npm run db:types` from the migrations, never by hand.
    files: ['apps/server/src/db/schema.generated.ts'],
    rules: { 'max-lines': 'off' },
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
