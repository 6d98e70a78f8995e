import net from 'node:net';
import { round1 } from './lib.ts';
import { newsletter } from './render-10k.ts';
import { startSink, type SinkKind } from './sinks.ts';

/**
 * The floor of `broadcast-100k` and `flow-100k`: the cheapest way to hand as many messages to the same kind of SMTP
 * sink on this machine. One message, rendered once (the newsletter's HTML under plain headers), is sent `count`
 * times, each to its own recipient, over `connections` connections that pipeline each envelope (MAIL, RCPT and DATA
 * in one write, as RFC 2920 allows) and reuse the connection for the next message. No queue, no database, no
 * rendering, no DKIM. Seconds from the first connection to the sink's last accepted message.
 */
export async function smtpFloor(kind: SinkKind, count: number, connections = 8): Promise<number> {
  const sink = await startSink(kind);
  try {
    const { port } = new URL(sink.url);
    const { subject, html } = newsletter();
    const body = [
      'From: News <news@sink.example.com>',
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      // Dot-stuffing and line ends, once: every copy is the same bytes.
      ...html.split(/\r?\n/).map((line) => (line.startsWith('.') ? `.${line}` : line)),
    ].join('\r\n');
    const data = Buffer.from(`${body}\r\n.\r\n`);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, () =>
        sendOver(Number(port), data, () => (next < count ? next++ : null)),
      ),
    );
    for (;;) {
      const stats = await sink.stats();
      if (stats.received >= count) {
        const seconds = (stats.lastAt - (Date.now() - (performance.now() - started))) / 1000;
        console.log(
          `  floor: ${count} pre-rendered messages (${Math.round(data.length / 1024)} kB) over ${connections} pipelined connections into the ${kind} sink in ${round1(seconds)} s; ${stats.distinct} distinct, ${stats.duplicates} duplicates`,
        );
        return round1(seconds);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    sink.stop();
  }
}

/** One SMTP connection sending messages while `take` hands out recipient numbers. */
async function sendOver(port: number, data: Buffer, take: () => number | null): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buffered = '';
  const waiting: { resolve(code: number): void; reject(error: Error): void }[] = [];
  const replies: number[] = [];
  let failed: Error | undefined;
  const fail = (error: Error) => {
    failed = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('SMTP floor: the sink closed the connection')));
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    let end: number;
    while ((end = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // The last line of a reply has a space after its code.
      if (line[3] !== ' ') continue;
      const code = Number(line.slice(0, 3));
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(code);
      else replies.push(code);
    }
  });
  const reply = () =>
    new Promise<number>((resolve, reject) => {
      const code = replies.shift();
      if (code !== undefined) resolve(code);
      else if (failed) reject(failed);
      else waiting.push({ resolve, reject });
    });
  const expect = async (wanted: number) => {
    const code = await reply();
    if (code !== wanted) throw new Error(`SMTP floor: ${code} where ${wanted} was expected`);
  };
  await expect(220);
  socket.write('EHLO floor.example\r\n');
  await expect(250);
  for (let n = take(); n !== null; n = take()) {
    socket.write(`MAIL FROM:<news@sink.example.com>\r\nRCPT TO:<floor${n}@sink.example.com>\r\nDATA\r\n`);
    await expect(250);
    await expect(250);
    await expect(354);
    socket.write(data);
    await expect(250);
  }
  socket.write('QUIT\r\n');
  await expect(221);
  socket.removeAllListeners('close');
  socket.end();
}
