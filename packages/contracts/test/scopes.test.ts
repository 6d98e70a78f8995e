import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  completeScopes,
  enforceScopeNeeds,
  hasScopes,
  scopeIds,
  scopeNeeds,
  toggleScope,
  type ScopeId,
  type ScopeState,
} from '../src/index.ts';

const anyScopes = fc
  .array(fc.boolean(), { minLength: scopeIds.length, maxLength: scopeIds.length })
  .map((flags) => scopeIds.map((id, i) => ({ id, enabled: flags[i]! })));
const enabledSet = (scopes: ScopeState[]) => new Set(scopes.filter((s) => s.enabled).map((s) => s.id));
const respectsNeeds = (scopes: ScopeState[]) => {
  const on = enabledSet(scopes);
  return [...on].every((id) => (scopeNeeds[id] ?? []).every((need) => on.has(need)));
};

describe('scope dependencies', () => {
  it('enforceScopeNeeds leaves every enabled scope with what it needs, only ever disabling, and is idempotent', () => {
    fc.assert(
      fc.property(anyScopes, (scopes) => {
        const result = enforceScopeNeeds(scopes);
        expect(respectsNeeds(result)).toBe(true);
        const before = enabledSet(scopes);
        for (const id of enabledSet(result)) expect(before.has(id)).toBe(true);
        expect(enforceScopeNeeds(result)).toEqual(result);
        if (respectsNeeds(scopes)) expect(result).toEqual(scopes);
      }),
    );
  });

  it('toggleScope keeps a consistent set consistent and sets the toggled scope', () => {
    fc.assert(
      fc.property(
        anyScopes.map(enforceScopeNeeds),
        fc.constantFrom(...scopeIds),
        fc.boolean(),
        (scopes, id: ScopeId, enable) => {
          const result = toggleScope(scopes, id, enable);
          expect(respectsNeeds(result)).toBe(true);
          expect(enabledSet(result).has(id)).toBe(enable);
        },
      ),
    );
  });

  it('follows the spec table', () => {
    const none = scopeIds.map((id) => ({ id, enabled: false }));
    expect([...enabledSet(toggleScope(none, 'flows:write', true))].sort()).toEqual([
      'emails:read',
      'flows:read',
      'flows:write',
    ]);
    expect([...enabledSet(toggleScope(none, 'billing:write', true))].sort()).toEqual([
      'billing:read',
      'billing:write',
    ]);
    const all = scopeIds.map((id) => ({ id, enabled: true }));
    const withoutEmailsRead = enabledSet(toggleScope(all, 'emails:read', false));
    for (const gone of [
      'emails:read',
      'emails:write',
      'broadcasts:read',
      'broadcasts:write',
      'flows:read',
      'flows:write',
    ]) {
      expect(withoutEmailsRead.has(gone as ScopeId)).toBe(false);
    }
    expect(withoutEmailsRead.has('people:read')).toBe(true);
    expect(
      completeScopes()
        .filter((s) => s.enabled)
        .map((s) => s.id),
    ).not.toContain('account:write');
  });

  it('an owner passes every check; a member needs every required scope', () => {
    fc.assert(
      fc.property(anyScopes, fc.subarray([...scopeIds]), (scopes, required) => {
        expect(hasScopes({ isOwner: true, scopes }, required)).toBe(true);
        const on = enabledSet(scopes);
        expect(hasScopes({ isOwner: false, scopes }, required)).toBe(required.every((id) => on.has(id)));
      }),
    );
  });
});
