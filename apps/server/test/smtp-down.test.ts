import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SmtpConnection } from '../src/features/deliveries/smtp-client.ts';
import { createSendTransport } from '../src/features/deliveries/transport.ts';

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('bulk SMTP with the server down (issue 22: a refused connection ended the sender thread and failed the whole send job)', () => {
  it('a refused connection rejects the open and leaves no promise rejected unhandled', async () => {
    const port = await closedPort();
    await expect(SmtpConnection.open({ url: new URL(`smtp://127.0.0.1:${port}`) })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    // Not a wait for work: an unhandled rejection has no signal of its own; Node reports it a few event-loop turns on.
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
  });

  it('the transport answers each message with a failure worth another try', async () => {
    const port = await closedPort();
    const transport = createSendTransport({
      smtpUrl: `smtp://127.0.0.1:${port}`,
      connections: 2,
      ratePerSecond: 0,
    });
    const prepare = () => ({
      message: {
        envelope: { from: 'news@example.com', to: 'reader@example.com' },
        raw: 'Subject: hi\r\n\r\nhello\r\n',
      },
      summary: {
        to: 'reader@example.com',
        from: 'news@example.com',
        subject: 'hi',
        text: 'hello',
        html: null,
      },
    });
    const outcomes = await Promise.all(
      [1, 2, 3].map(() =>
        transport.send(prepare as never, {
          sending: () => undefined,
          held: () => undefined,
          left: () => undefined,
        }),
      ),
    );
    transport.close();
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({
        ok: false,
        permanent: false,
        error: expect.stringMatching(/ECONNREFUSED/),
      });
    // Not a wait for work: an unhandled rejection has no signal of its own; Node reports it a few event-loop turns on.
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
  });
});
