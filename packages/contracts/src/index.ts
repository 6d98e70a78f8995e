export * from './messages.ts';
export * from './errors.ts';
export * from './scopes.ts';
export * from './registration.ts';
export * from './accounts.ts';
export * from './team.ts';
export * from './people.ts';
