import { expect } from 'vitest';
import type { registerUser, TestContext } from './helpers.ts';
import { until } from './until.ts';

type Owner = Awaited<ReturnType<typeof registerUser>>;

/** Upload a CSV the way the browser does: an upload URL, then a PUT to it without a session. */
export async function uploadCsv(ctx: TestContext, owner: Owner, content: Buffer | string): Promise<string> {
  const { body } = await owner.client.post('/v1/imports/upload-url');
  const url = new URL(body.url);
  const put = await ctx.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: { 'content-type': 'text/csv' },
    payload: typeof content === 'string' ? Buffer.from(content) : content,
  });
  expect(put.statusCode).toBe(204);
  return body.key as string;
}

/** Poll an import until it is done or failed (at most `limitMs`); its last answer. */
export async function waitForImport(owner: Owner, id: number, limitMs = 60_000) {
  let last: unknown;
  return until(
    async () => {
      const res = await owner.client.get(`/v1/imports/${id}`);
      last = res.body;
      return (res.body.status === 'done' || res.body.status === 'failed') && res.body;
    },
    { timeout: limitMs, message: () => `import ${id} finished (it is ${JSON.stringify(last)})` },
  );
}
