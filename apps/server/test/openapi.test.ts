import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const refsIn = (value: unknown) =>
  [...new Set(JSON.stringify(value).match(/"#\/components\/schemas\/[^"]+"/g) ?? [])].map((ref) =>
    ref.slice(22, -1),
  );

describe('/v1/openapi.json', () => {
  it('is a valid OpenAPI document by a standard parser, every $ref resolving', async () => {
    const res = await new Client(ctx.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    const result = await validate(structuredClone(res.body));
    expect(result.valid ? [] : result.errors.map((error) => error.message)).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('names the recursive segment condition tree as components that the segment operations reference', async () => {
    const doc = (await new Client(ctx.app).get('/v1/openapi.json')).body;
    for (const name of refsIn(doc)) expect(doc.components?.schemas?.[name], name).toBeDefined();
    // Generated ids (schema0, id0…) would mean an unnamed recursive schema slipped through.
    expect(Object.keys(doc.components.schemas).filter((name) => /^(schema|id)\d+$/.test(name))).toEqual([]);
    const node = doc.components.schemas.SegmentConditionNode;
    expect(refsIn(node)).toContain('SegmentConditionGroup');
    expect(refsIn(doc.components.schemas.SegmentConditionGroup)).toContain('SegmentConditionNode');
    const operations = [
      doc.paths['/v1/segments'].get,
      doc.paths['/v1/segments/'].post,
      doc.paths['/v1/segments/{id}'].patch,
      doc.paths['/v1/segments/{id}/explain'].post,
    ];
    for (const operation of operations)
      expect(
        refsIn(operation.responses).some((name) => name.startsWith('SegmentCondition')),
        operation.summary,
      ).toBe(true);
  });

  it('documents the emails calls, folders and logging', async () => {
    const doc = (await new Client(ctx.app).get('/v1/openapi.json')).body;
    const expected = [
      ['get', '/v1/emails'],
      ['post', '/v1/emails'],
      ['get', '/v1/emails/templates'],
      ['get', '/v1/emails/{id}'],
      ['patch', '/v1/emails/{id}'],
      ['post', '/v1/emails/test'],
      ['post', '/v1/emails/duplication'],
      ['post', '/v1/emails/preview'],
      ['get', '/v1/folders'],
      ['post', '/v1/folders'],
      ['post', '/v1/logging'],
    ];
    for (const [method, path] of expected)
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined();
    const create = doc.paths['/v1/emails'].post.requestBody.content['application/json'].schema;
    expect(create.type ?? create.$ref).toBeDefined();
    expect(
      doc.paths['/v1/folders'].get.parameters.find((p: { name: string }) => p.name === 'folderType').required,
    ).not.toBe(true);
  });
});
