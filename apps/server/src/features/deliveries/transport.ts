import { joinPieces, type MimePieces } from '@herald/email/sending';
import type { DevMailbox } from '../../db/schema.generated.ts';
import { SmtpConnection, SmtpError, type DotHooks, type SmtpTls } from './smtp-client.ts';

/** What a send answers: the server's reply, or an error that says whether trying again can help. */
export type SendOutcome =
  | { ok: true; response: string }
  | { ok: false; permanent: boolean; error: string; opening?: SmtpError['opening'] };

/** What the built-in mailbox shows of a message sent as raw MIME. */
export interface MessageSummary {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string | null;
}

/** A message the built-in mailbox keeps (written by the main thread, which holds the database). */
export type MailboxRow = Omit<DevMailbox, 'id' | 'createdAt'>;

/** A message written when a connection is free to take it (so only messages being sent are held in memory). */
export type PrepareMessage = () => { message: RawMessage; summary: MessageSummary };

export interface SendTransport {
  /**
   * Send the message `prepare` writes; a `prepare` that throws fails the message for good with its error.
   * `dot` hears what happens around the message's final dot (the send journal's moments, smtp-client.ts DotHooks).
   */
  send(prepare: PrepareMessage, dot: DotHooks): Promise<SendOutcome>;
  /** Messages that went to the built-in mailbox since the last call. */
  takeMailbox(): MailboxRow[];
  close(): void;
}

/** 5xx replies are final (the address or the message is refused); anything else (4xx, a dropped or slow connection) is worth another try. */
export function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** A raw MIME message and its envelope, as the bulk sender hands it over. */
export interface RawMessage {
  envelope: { from: string; to: string };
  /** The message, or its pieces (what a planned message is written as: joined only on the way to the socket). */
  raw: string | MimePieces;
  /** CRLF line ends, no line starting with a dot, and ASCII bodies (what toMime writes): sent as it is. */
  wireReady?: boolean;
}

function prepareOrFail(prepare: PrepareMessage): ReturnType<PrepareMessage> | { failure: SendOutcome } {
  try {
    return prepare();
  } catch (error) {
    return {
      failure: {
        ok: false,
        permanent: true,
        error: String(error instanceof Error ? error.message : error).slice(0, 1000),
      },
    };
  }
}

/**
 * The message alone, for SMTP: the rendered HTML and text of the mailbox summary are let go before the send, so a
 * thread keeps one copy of each message in flight, not three (less for the garbage collector to copy and promote).
 */
function messageOrFail(prepare: PrepareMessage): RawMessage | { failure: SendOutcome } {
  const prepared = prepareOrFail(prepare);
  return 'failure' in prepared ? prepared : prepared.message;
}

/**
 * A pool of lean SMTP connections (smtp-client.ts): SMTP_MAX_CONNECTIONS connections, each sending the next
 * queued message as soon as the last one is accepted, paced by SMTP_RATE_PER_SECOND when set. A connection that
 * fails is replaced for the next message; the message it carried reports the failure (retried by the caller).
 */
function createSmtpPool(options: TransportOptions) {
  const url = new URL(options.smtpUrl!);
  const queue: { prepare: PrepareMessage; dot: DotHooks; resolve: (outcome: SendOutcome) => void }[] = [];
  const idle: SmtpConnection[] = [];
  let open = 0;
  let closed = false;
  const spacing = options.ratePerSecond > 0 ? 1000 / options.ratePerSecond : 0;
  let nextSlot = 0;

  const pace = async () => {
    if (!spacing) return;
    const now = Date.now();
    const at = Math.max(now, nextSlot);
    nextSlot = at + spacing;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };

  const work = async (connection: SmtpConnection | null) => {
    let current = connection;
    for (;;) {
      const job = queue.shift();
      if (!job || closed) break;
      await pace();
      const message = messageOrFail(job.prepare);
      if ('failure' in message) {
        job.resolve(message.failure);
        continue;
      }
      try {
        // An idle connection the server has closed since is replaced, not used.
        if (current?.closed) current = null;
        current ??= await SmtpConnection.open({ url, tls: options.tls });
        const response = await current.send(message.envelope, message.raw, {
          wireReady: message.wireReady,
          dot: job.dot,
        });
        job.resolve({ ok: true, response: response.slice(0, 500) });
      } catch (error) {
        // A connection that could not be opened (connect, TLS, login) is the relay's or the settings' fault: never
        // the message's, so never final for it.
        const opening = error instanceof SmtpError ? error.opening : undefined;
        job.resolve({
          ok: false,
          permanent: !opening && isPermanent(error),
          error: String(error instanceof Error ? error.message : error).slice(0, 1000),
          ...(opening ? { opening } : {}),
        });
        if (current?.closed) current = null;
      }
    }
    if (current && !current.closed) idle.push(current);
    else open--;
  };

  return {
    send(prepare: PrepareMessage, dot: DotHooks): Promise<SendOutcome> {
      return new Promise((resolve) => {
        queue.push({ prepare, dot, resolve });
        if (idle.length) void work(idle.pop()!);
        else if (open < options.connections) {
          open++;
          void work(null);
        }
      });
    },
    close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.close();
    },
  };
}

export interface TransportOptions {
  smtpUrl: string | undefined;
  tls?: SmtpTls;
  connections: number;
  ratePerSecond: number;
}

/** The bulk transport: the SMTP pool (SMTP_URL), or without it (outside production) the built-in mailbox. */
export function createSendTransport(options: TransportOptions): SendTransport {
  const mailbox: MailboxRow[] = [];
  const pool = options.smtpUrl ? createSmtpPool(options) : null;
  return {
    async send(prepare, dot) {
      if (pool) return pool.send(prepare, dot);
      const prepared = prepareOrFail(prepare);
      if ('failure' in prepared) return prepared.failure;
      const { message, summary } = prepared;
      dot.sending();
      const raw = typeof message.raw === 'string' ? message.raw : joinPieces(message.raw);
      mailbox.push({
        toAddress: summary.to,
        fromAddress: summary.from,
        subject: summary.subject,
        textBody: summary.text,
        htmlBody: summary.html,
        raw,
      });
      return { ok: true, response: 'mailbox' };
    },
    takeMailbox: () => mailbox.splice(0, mailbox.length),
    close: () => pool?.close(),
  };
}
