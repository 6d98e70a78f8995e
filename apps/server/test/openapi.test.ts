import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('/v1/openapi.json', () => {
  it('is a valid OpenAPI document by a standard parser, every $ref resolving', async () => {
    const res = await new Client(ctx.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    const result = await validate(structuredClone(res.body));
    expect(result.valid ? [] : result.errors.map((error) => error.message)).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('documents the segment operations (the recursive condition tree as a named schema) and the emails calls', async () => {
    const doc = (await new Client(ctx.app).get('/v1/openapi.json')).body;
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) expect(doc.components?.schemas?.[ref.slice(22, -1)], ref).toBeDefined();
    for (const path of ['/v1/segments', '/v1/emails', '/v1/emails/{id}', '/v1/emails/test', '/v1/emails/duplication', '/v1/emails/preview', '/v1/folders', '/v1/logging']) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
