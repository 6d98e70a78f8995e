import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { until } from '../until.ts';

/** What the sink has accepted: every message, by recipient and by Message-ID. */
export interface SinkCounts {
  /** Messages accepted (one per recipient). */
  received: number;
  /** Distinct recipients. */
  distinct: number;
  /** Messages that arrived for a recipient a second time. */
  duplicateRecipients: number;
  /** Messages whose Message-ID had already arrived. */
  duplicateMessageIds: number;
}

/**
 * A real SMTP server for the fault suite that counts what it accepts per recipient and per Message-ID. It can go
 * down and come back on the same port (`stop`, `start`): going down, it stops listening, answers 421 to every open
 * connection and refuses (421) any message whose final dot arrives after that, so what it counts is exactly what it
 * acknowledged with a 250.
 */
/**
 * Whether a message's content came in full: what arrived ends with the closing line of its multipart body (Herald's
 * messages are multipart/alternative), less the few bytes the SMTP parser keeps back until it sees what follows.
 */
function completeBeforeDot(head: string, tail: string): boolean {
  const boundary = /^content-type:\s*multipart\/[^\r\n]*boundary="?([^";\r\n]+)"?/im.exec(head)?.[1];
  if (!boundary) return false;
  const closing = `\r\n--${boundary}--\r\n`;
  for (let kept = 0; kept <= 4; kept++)
    if (tail.endsWith(closing.slice(0, closing.length - kept))) return true;
  return false;
}

export async function startSink(port = 0) {
  const perRecipient = new Map<string, number>();
  const messageIds = new Set<string>();
  const counts = { received: 0, duplicateRecipients: 0, duplicateMessageIds: 0 };
  /** Recipients of messages whose connection closed after their content came in full, before the final dot was read. */
  const cutAtDot = new Set<string>();
  let server: SMTPServer | undefined;
  let accepting = false;
  const sockets = new Set<net.Socket>();
  /** Messages whose DATA has begun and not yet ended (accepted, refused or dropped with their connection). */
  let arriving = 0;

  const listen = async (onPort: number) => {
    const created = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      maxClients: 1000,
      closeTimeout: 1,
      onData(stream, session, callback) {
        let head = '';
        let tail = '';
        let ended = false;
        const over = () => {
          if (!ended) arriving--;
          ended = true;
        };
        arriving++;
        stream.on('data', (chunk: Buffer) => {
          const text = chunk.toString('latin1');
          if (head.length < 8192) head += text;
          tail = (tail + text).slice(-512);
        });
        stream.on('close', () => {
          // Closed without its end: a message whose content came in full was cut at its final dot.
          if (!ended && completeBeforeDot(head, tail))
            for (const rcpt of session.envelope.rcptTo) cutAtDot.add(rcpt.address.toLowerCase());
          over();
        });
        stream.on('end', () => {
          over();
          if (!accepting)
            return callback(
              Object.assign(new Error('Service not available, closing transmission channel'), {
                responseCode: 421,
              }),
            );
          const headers = head.split(/\r?\n\r?\n/)[0] ?? '';
          const messageId = /^message-id:\s*(\S+)/im.exec(headers)?.[1];
          if (messageId) {
            if (messageIds.has(messageId)) counts.duplicateMessageIds++;
            else messageIds.add(messageId);
          }
          for (const rcpt of session.envelope.rcptTo) {
            const address = rcpt.address.toLowerCase();
            const seen = perRecipient.get(address) ?? 0;
            if (seen > 0) counts.duplicateRecipients++;
            perRecipient.set(address, seen + 1);
            counts.received++;
          }
          callback();
        });
      },
    });
    // A client killed mid-message resets its connection: that is what the suite does, not a failure of the sink.
    created.on('error', () => undefined);
    created.server.on('connection', (socket: net.Socket) => {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      created.server.once('error', reject);
      created.listen(onPort, '127.0.0.1', () => resolve());
    });
    server = created;
    accepting = true;
    return (created.server.address() as net.AddressInfo).port;
  };

  const boundPort = await listen(port);
  return {
    url: `smtp://127.0.0.1:${boundPort}`,
    port: boundPort,
    counts(): SinkCounts {
      return { ...counts, distinct: perRecipient.size };
    },
    /** How many messages each of `addresses` received. */
    receivedBy(address: string): number {
      return perRecipient.get(address.toLowerCase()) ?? 0;
    },
    /**
     * Whether a message to `address` was cut at its final dot: its content came in full and its connection closed
     * before the dot was read (a sender killed between its journal line and the dot's write, the send journal's
     * documented limit, docs/broadcasts-and-sending.md).
     */
    wasCutAtDot(address: string): boolean {
      return cutAtDot.has(address.toLowerCase());
    },
    recipients(): Map<string, number> {
      return new Map(perRecipient);
    },
    /** Wait until no message is arriving: whatever a sender had on its way has been counted (or refused). */
    idle(timeoutMs = 30_000): Promise<boolean> {
      return until(() => arriving === 0, {
        timeout: timeoutMs,
        message: () => `the sink idle (${arriving} messages arriving)`,
      });
    },
    /** Go down: no new connection, 421 to the open ones, nothing more accepted. */
    async stop(): Promise<void> {
      accepting = false;
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve) => closing.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
    },
    /** Come back on the same port. */
    async start(): Promise<void> {
      if (server) return;
      // The port may still be held by the connections just closed: listening again is retried for 5 s.
      await until(() => listen(boundPort).then(() => true), {
        timeout: 5_000,
        message: `the sink listening again on port ${boundPort}`,
      });
    },
  };
}

export type Sink = Awaited<ReturnType<typeof startSink>>;
