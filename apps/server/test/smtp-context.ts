import { afterAll, beforeAll } from 'vitest';
import { createTestContext, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

export type SmtpSink = Awaited<ReturnType<typeof startSmtpServer>>;

/**
 * Registers the calling test file's hooks: before its tests, an SMTP sink and a server whose mail goes there (`env`
 * added to its configuration) with a job worker, handed to `ready`; after them, both closed. A fixture module keeps
 * what `ready` gets for its file: the test worker shares modules between files, so each file calls this itself.
 */
export function useSmtpContext(
  env: Record<string, string>,
  ready: (ctx: TestContext, smtp: SmtpSink) => void,
): void {
  let ctx: TestContext;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    ctx = await createTestContext({ SMTP_URL: smtp.url, ...env });
    await ctx.startWorker();
    ready(ctx, smtp);
  });
  afterAll(async () => {
    await ctx.close();
    await smtp.close();
  });
}
