import net from 'node:net';
import tls from 'node:tls';
import type { MimePieces } from '@herald/email/sending';

/**
 * A lean SMTP client for bulk sending: one connection sends message after message; MAIL, RCPT and DATA go out
 * together when the server offers PIPELINING (RFC 2920), and the message goes out in one write. Herald's MIME
 * (packages/email toMime) has no line starting with a dot, so it needs no dot-stuffing; other text is stuffed.
 * STARTTLS is used when offered (required for AUTH), smtps:// connects over TLS, AUTH PLAIN or LOGIN with the
 * URL's credentials.
 */
export class SmtpError extends Error {
  constructor(
    message: string,
    /** The server's reply code; absent for a connection that failed or timed out. */
    readonly responseCode?: number,
    /**
     * Set when the connection could not be opened (connect, greeting, STARTTLS, login): the relay or Herald's
     * settings are at fault, not the message, and no message was handed over.
     */
    readonly opening?: 'connect' | 'tls' | 'login',
  ) {
    super(message);
  }
}

/** TLS towards the relay (Config.smtpTls): extra trusted CA certificates, and whether the certificate is checked. */
export interface SmtpTls {
  ca?: string | undefined;
  verify?: boolean;
}

/**
 * The TLS options for a relay reached at `host` (a name or an address, as in SMTP_URL): the certificate is checked
 * against that name or address (Node checks an address against the certificate's IP entries), with the system's
 * CAs plus SMTP_TLS_CA_FILE's. SNI is sent for names only, as TLS allows.
 */
export function tlsOptionsFor(host: string, settings: SmtpTls = {}): tls.ConnectionOptions {
  return {
    host,
    ...(net.isIP(host) ? {} : { servername: host }),
    ...(settings.ca ? { ca: [...tls.rootCertificates, settings.ca] } : {}),
    rejectUnauthorized: settings.verify !== false,
  };
}

interface Reply {
  code: number;
  text: string;
}

export interface SmtpClientOptions {
  url: URL;
  /** Milliseconds to wait for any reply. */
  timeoutMs?: number;
  /** The name this client gives in EHLO. */
  clientName?: string;
  tls?: SmtpTls;
}

/** A whole MIME message as its header block (to the blank line) and its body; all head when it has no blank line. */
function splitHead(raw: string): MimePieces {
  const bodyAt = raw.indexOf('\r\n\r\n') + 4;
  return bodyAt >= 4 ? { head: raw.slice(0, bodyAt), body: [raw.slice(bodyAt)] } : { head: raw, body: [] };
}

/**
 * What a sender hears around a message's final dot, to keep its send journal (send-journal.ts) true when the process
 * is killed at any instant. Written just before the dot, a line can only be wrong in the microseconds before the
 * dot's own write; a dot the socket cannot take at once (its send buffer is full) would leave it wrong for as long as
 * the dot waits in the process, so the line is taken back and written again once the dot has left.
 */
export interface DotHooks {
  /** The dot is about to be written: from now on the server may keep the message. */
  sending(): void;
  /** The socket could not take the dot at once; it waits in the process, and the server has not got it. */
  held(): void;
  /** A held dot has now left the process for the operating system, which delivers it even if the process dies. */
  left(): void;
}

const DOT = Buffer.from('.\r\n', 'latin1');

export class SmtpConnection {
  private socket!: net.Socket;
  private buffer = '';
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  private pipelining = false;
  /**
   * Where a message given in pieces is written before it goes to the socket: one per connection, reused for each
   * message (the next is written only after the last one's write has completed), grown when a message needs more.
   */
  private out: Buffer | null = null;
  closed = false;

  private constructor(private readonly options: SmtpClientOptions) {}

  /** Open a connection, ready for MAIL FROM; an SmtpError with `opening` set says which step failed and why. */
  static async open(options: SmtpClientOptions): Promise<SmtpConnection> {
    const connection = new SmtpConnection(options);
    try {
      await connection.connect();
    } catch (error) {
      connection.socket?.destroy();
      connection.closed = true;
      throw connection.openingError(error);
    }
    return connection;
  }

  /** Which step of opening failed, said with the relay's address (never its credentials) and the cause. */
  private step: 'connect' | 'tls' | 'login' = 'connect';
  private openingError(error: unknown): SmtpError {
    const { url } = this.options;
    const where = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`;
    const cause = error instanceof Error ? error.message : String(error);
    const code = error instanceof SmtpError ? error.responseCode : undefined;
    const what = {
      connect: `Could not connect to the SMTP server at ${where}`,
      tls: `Could not start TLS with the SMTP server at ${where}`,
      login: `The SMTP server at ${where} refused the login`,
    }[this.step];
    return new SmtpError(`${what}: ${cause}`, code, this.step);
  }

  private attach(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setTimeout(this.options.timeoutMs ?? 60_000, () =>
      socket.destroy(new SmtpError('The SMTP server did not answer in time.')),
    );
    socket.on('data', (chunk: Buffer) => this.onData(chunk.toString('latin1')));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new SmtpError('The SMTP server closed the connection.')));
  }

  private fail(error: Error) {
    this.closed = true;
    this.failure ??= error instanceof SmtpError ? error : new SmtpError(error.message);
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }

  private onData(text: string) {
    this.buffer += text;
    for (;;) {
      // A reply ends with a line whose code is followed by a space (multi-line replies use a hyphen).
      const match = /^(\d{3}) .*$/m.exec(this.buffer);
      if (!match) return;
      const end = match.index + match[0].length + 2;
      const lines = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end);
      const waiter = this.waiting.shift();
      waiter?.resolve({ code: Number(match[1]), text: lines.trim() });
    }
  }

  private read(): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private async command(line: string, expect: number[]): Promise<Reply> {
    const reply = this.read();
    this.socket.write(`${line}\r\n`);
    return this.check(await reply, expect);
  }

  private check(reply: Reply, expect: number[]): Reply {
    if (!expect.includes(reply.code)) throw new SmtpError(reply.text, reply.code);
    return reply;
  }

  private async connect() {
    const { url } = this.options;
    const secure = url.protocol === 'smtps:';
    const port = Number(url.port) || (secure ? 465 : 587);
    // An IPv6 address stands in brackets in a URL.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const tlsOptions = tlsOptionsFor(host, this.options.tls);
    const socket = secure ? tls.connect({ ...tlsOptions, port }) : net.connect({ host, port });
    // Over smtps:// the handshake follows the TCP connection at once.
    if (secure) socket.once('connect', () => (this.step = 'tls'));
    this.attach(socket);
    const greeting = this.read();
    // A refused connection rejects the greeting too, before it is awaited: unhandled, that ended the sender thread
    // and failed the whole send job instead of this message (issue 22, SMTP server down).
    greeting.catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    this.check(await greeting, [220]);
    let ehlo = await this.command(`EHLO ${this.options.clientName ?? 'herald.localhost'}`, [250]);
    if (!secure && /STARTTLS/i.test(ehlo.text)) {
      this.step = 'tls';
      await this.command('STARTTLS', [220]);
      const plain = this.socket;
      plain.removeAllListeners('data');
      plain.removeAllListeners('close');
      plain.removeAllListeners('error');
      // The certificate is checked against the host as connected (a name or an address); without `host`, Node
      // checks it against "localhost".
      const upgraded = tls.connect({ ...tlsOptions, socket: plain });
      this.attach(upgraded);
      await new Promise<void>((resolve, reject) => {
        upgraded.once('secureConnect', () => resolve());
        upgraded.once('error', reject);
      });
      ehlo = await this.command(`EHLO ${this.options.clientName ?? 'herald.localhost'}`, [250]);
    }
    this.pipelining = /PIPELINING/i.test(ehlo.text);
    if (url.username) {
      this.step = 'login';
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      if (/AUTH[ =][^\r\n]*PLAIN/i.test(ehlo.text)) {
        await this.command(
          `AUTH PLAIN ${Buffer.from(`\u0000${user}\u0000${pass}`).toString('base64')}`,
          [235],
        );
      } else {
        await this.command('AUTH LOGIN', [334]);
        await this.command(Buffer.from(user).toString('base64'), [334]);
        await this.command(Buffer.from(pass).toString('base64'), [235]);
      }
    }
  }

  /**
   * Send one message; resolves with the server's reply to the final dot, rejects with an SmtpError. `dot` is told
   * what happens around the final dot (see DotHooks): until the dot the server keeps nothing, so a caller that
   * records the send there (the send journal) lists what the server may have kept. A hook that throws fails the
   * connection, and with it the send.
   */
  async send(
    envelope: { from: string; to: string },
    raw: string | MimePieces,
    options: { wireReady?: boolean; dot?: DotHooks } = {},
  ): Promise<string> {
    // Pieces are what toMime writes, and so is a wireReady string (CRLF line ends, no line starting with a dot, an
    // ASCII body): nothing to rewrite, and only the header block may hold UTF-8 (an address). Other text is
    // dot-stuffed, given CRLF line ends and looked at whole.
    const message =
      typeof raw !== 'string'
        ? raw
        : options.wireReady
          ? splitHead(raw)
          : {
              head: (/(^|\n)\./.test(raw) ? raw.replace(/(^|\n)\./g, '$1..') : raw).replace(/\r?\n/g, '\r\n'),
              body: [],
            };
    const mail = `MAIL FROM:<${envelope.from}>`;
    const rcpt = `RCPT TO:<${envelope.to}>`;
    if (this.pipelining) {
      const replies = [this.read(), this.read(), this.read()];
      // Awaited one by one below; a dropped connection rejects all three, and none may go unhandled.
      for (const reply of replies) reply.catch(() => undefined);
      this.socket.write(`${mail}\r\n${rcpt}\r\nDATA\r\n`);
      const got: Reply[] = [];
      for (const reply of replies) got.push(await reply);
      const [m, r, d] = got as [Reply, Reply, Reply];
      const refused = m.code !== 250 ? m : r.code !== 250 && r.code !== 251 ? r : d.code !== 354 ? d : null;
      if (refused) {
        // A refused sender or recipient: end a DATA the server opened anyway, and reset for the next message.
        if (d.code === 354) {
          const done = this.read();
          this.socket.write(DOT);
          await done.catch(() => undefined);
        }
        await this.command('RSET', [250]).catch(() => undefined);
        throw new SmtpError(refused.text, refused.code);
      }
    } else {
      await this.command(mail, [250]);
      try {
        await this.command(rcpt, [250, 251]);
        await this.command('DATA', [354]);
      } catch (error) {
        await this.command('RSET', [250]).catch(() => undefined);
        throw error;
      }
    }
    // The content first; the dot alone once the content has left the process (the write's callback), so that the
    // dot's write is the last step. Only waiting for 'drain' left content queued in the process under load: a kill
    // then lost a message the journal called sent.
    await this.written(this.fill(message));
    const accepted = this.read();
    const hooks = options.dot;
    if (hooks) {
      try {
        hooks.sending();
      } catch (error) {
        // Mid-DATA, the connection is no use for another message.
        accepted.catch(() => undefined);
        this.socket.destroy();
        throw error;
      }
    }
    let held = false;
    this.socket.write(DOT, (error) => {
      if (held && !error) this.hook(() => hooks?.left());
    });
    // A plain socket that took the dot whole has handed it to the operating system. Otherwise it waits in the
    // process (a full send buffer) until its write completes; under TLS the callback says when the encrypted
    // bytes went.
    if (this.socket instanceof tls.TLSSocket || this.socket.writableLength > 0) {
      held = true;
      this.hook(() => hooks?.held());
    }
    return this.check(await accepted, [250]).text;
  }

  /** Run a dot hook; one that throws ends the connection, so the message waiting for its reply fails. */
  private hook(run: () => void) {
    try {
      run();
    } catch (error) {
      this.socket.destroy(error instanceof Error ? error : new SmtpError(String(error)));
    }
  }

  /**
   * A message in pieces as bytes, in this connection's buffer: the head as UTF-8 when it is not ASCII (an address
   * may be), the body's ASCII pieces one byte a character, without a UTF-8 encoding pass. Ends with a line break,
   * as the dot needs.
   */
  private fill({ head, body }: MimePieces): Buffer {
    const headEncoding = /[^\x00-\x7f]/.test(head) ? 'utf8' : 'latin1';
    let size = Buffer.byteLength(head, headEncoding) + 2;
    for (const piece of body) size += piece.length;
    if (!this.out || this.out.length < size)
      this.out = Buffer.allocUnsafe(Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(size))));
    const out = this.out;
    let at = out.write(head, 0, headEncoding);
    for (const piece of body) at += out.write(piece, at, 'latin1');
    if (at < 2 || out[at - 2] !== 13 || out[at - 1] !== 10) at += out.write('\r\n', at, 'latin1');
    return out.subarray(0, at);
  }

  /** Write to the socket; resolves once the data has left the process for the operating system's socket buffer. */
  private written(data: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const onClose = () => reject(this.failure ?? new SmtpError('The SMTP server closed the connection.'));
      this.socket.once('close', onClose);
      this.socket.write(data, (error) => {
        this.socket.off('close', onClose);
        if (error) reject(this.failure ?? new SmtpError(error.message));
        else resolve();
      });
    });
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.socket.end('QUIT\r\n');
  }
}
