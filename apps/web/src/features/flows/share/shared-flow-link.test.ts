import { describe, expect, it } from 'vitest';
import { sharedFlowOf } from './shared-flow-link.ts';

describe('sharedFlowOf', () => {
  it('reads the flow and token of a share link, whatever else the query holds', () => {
    const token = 'eyJraW5kIjoiZmxvdy1zaGFyZSJ9.a-b_c';
    for (const [id, extra] of [
      [1, {}],
      [42, { tab: 'steps' }],
      [Number.MAX_SAFE_INTEGER, { a: '1', b: 'x y' }],
    ] as const) {
      const query = new URLSearchParams({ ...extra, 'flow-read-auth': token });
      expect(sharedFlowOf({ pathname: `/flows/${id}`, search: `?${query.toString()}` })).toEqual({
        flowId: id,
        token,
      });
    }
    expect(sharedFlowOf({ pathname: '/flows/7/', search: '?flow-read-auth=a%2Bb%3D' })).toEqual({
      flowId: 7,
      token: 'a+b=',
    });
  });

  it('is null for other pages, a missing or empty token, and ids that are not flows', () => {
    expect(sharedFlowOf({ pathname: '/flows/12', search: '' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/flows/12', search: '?flow-read-auth=' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/flows', search: '?flow-read-auth=x' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/flows/0', search: '?flow-read-auth=x' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/flows/12/edit', search: '?flow-read-auth=x' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/emails/12', search: '?flow-read-auth=x' })).toBeNull();
    expect(sharedFlowOf({ pathname: '/flows/99999999999999999999', search: '?flow-read-auth=x' })).toBeNull();
  });
});
