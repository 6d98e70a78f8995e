import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSink, type Sink } from './faults/sink.ts';

// The fault suite's SMTP sink tells a message cut at its final dot (content in full, connection closed before the
// dot) from one cut earlier: the broadcast and flow parts allow the first, one per kill, and never the second.
let sink: Sink;
beforeAll(async () => {
  sink = await startSink();
});
afterAll(() => sink.stop());

const boundary = '=_herald_test_1';
const content = [
  'From: news@example.com',
  'Subject: Hello',
  'MIME-Version: 1.0',
  `Content-Type: multipart/alternative; boundary="${boundary}"`,
  '',
  `--${boundary}`,
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello there.',
  `--${boundary}--`,
  '',
].join('\r\n');

/** Open a connection, go as far as DATA for `to`, write `body`, then close the connection (FIN). */
async function sendAndClose(to: string, body: string): Promise<void> {
  const socket = net.connect(sink.port, '127.0.0.1');
  let heard = '';
  socket.on('data', (chunk: Buffer) => (heard += chunk.toString('latin1')));
  const replies = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if ((heard.match(/^\d{3} /gm) ?? []).length >= count) resolve();
        else setTimeout(check, 5);
      };
      check();
    });
  await replies(1);
  for (const [line, count] of [
    ['EHLO test', 2],
    ['MAIL FROM:<news@example.com>', 3],
    [`RCPT TO:<${to}>`, 4],
    ['DATA', 5],
  ] as const) {
    socket.write(`${line}\r\n`);
    await replies(count);
  }
  await new Promise<void>((resolve) => socket.write(body, () => resolve()));
  await new Promise<void>((resolve) => socket.end(() => resolve()));
  await sink.idle(5_000);
}

describe('the fault suite sink', () => {
  it('counts a message whose content came in full but whose dot never did as cut at the dot, and nothing else', async () => {
    await sendAndClose('full@example.com', content);
    await sendAndClose('half@example.com', content.slice(0, content.length - 20));
    await sendAndClose('whole@example.com', `${content}.\r\n`);
    expect({
      full: [sink.receivedBy('full@example.com'), sink.wasCutAtDot('full@example.com')],
      half: [sink.receivedBy('half@example.com'), sink.wasCutAtDot('half@example.com')],
      whole: [sink.receivedBy('whole@example.com'), sink.wasCutAtDot('whole@example.com')],
    }).toEqual({ full: [0, true], half: [0, false], whole: [1, false] });
  });
});
