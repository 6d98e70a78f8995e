import net from 'node:net';
import { countMessage, reportTo } from './sink-counts.ts';

/**
 * The throughput workloads' SMTP sink: the same counts as smtp-sink.ts (messages, distinct recipients, recipients
 * seen twice) from a receiver that spends little of the machine's two cores. It answers the way a production MTA
 * does under PIPELINING (RFC 2920): the replies to everything one read brought are written together, so a pipelined
 * MAIL, RCPT and DATA cost the receiver one write, not three (smtp-server writes each reply alone, and its writes
 * were most of its CPU). A message counts once its end-of-data line arrives, as with smtp-server; a connection that
 * drops before it counts nothing.
 */
const ehlo = '250-sink.localhost\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n';
const endOfData = Buffer.from('\r\n.\r\n', 'latin1');

function serve(socket: net.Socket) {
  socket.setNoDelay(true);
  let lines = '';
  let inData = false;
  /** The last bytes of the message so far (an end-of-data line may be split between reads). */
  let tail = Buffer.alloc(0);
  let recipients: string[] = [];

  /** Find the end of the message in `chunk`; returns the offset just past it, or -1. */
  const endIn = (chunk: Buffer): number => {
    // Across the boundary: up to four bytes before the chunk, and the start of the chunk.
    const joined = Buffer.concat([tail, chunk.subarray(0, endOfData.length - 1)]);
    const across = joined.indexOf(endOfData);
    if (across >= 0) return across + endOfData.length - tail.length;
    const within = chunk.indexOf(endOfData);
    if (within >= 0) return within + endOfData.length;
    const keep = chunk.length >= endOfData.length - 1 ? chunk : Buffer.concat([tail, chunk]);
    tail = Buffer.from(keep.subarray(Math.max(0, keep.length - (endOfData.length - 1))));
    return -1;
  };

  const command = (line: string, replies: string[]) => {
    const verb = line.slice(0, 4).toUpperCase();
    if (verb === 'EHLO') replies.push(ehlo);
    else if (verb === 'HELO') replies.push('250 sink.localhost\r\n');
    else if (verb === 'MAIL') {
      recipients = [];
      replies.push('250 2.1.0 Ok\r\n');
    } else if (verb === 'RCPT') {
      const address = /<([^>]*)>/.exec(line)?.[1];
      if (address === undefined) replies.push('501 5.5.4 Syntax: RCPT TO:<address>\r\n');
      else {
        recipients.push(address);
        replies.push('250 2.1.5 Ok\r\n');
      }
    } else if (verb === 'DATA') {
      if (!recipients.length) replies.push('503 5.5.1 Error: need RCPT command\r\n');
      else {
        inData = true;
        // The DATA line's own line break counts as the one before a message that is only the dot.
        tail = Buffer.from('\r\n', 'latin1');
        replies.push('354 End data with <CR><LF>.<CR><LF>\r\n');
      }
    } else if (verb === 'RSET') {
      recipients = [];
      replies.push('250 2.0.0 Ok\r\n');
    } else if (verb === 'NOOP') replies.push('250 2.0.0 Ok\r\n');
    else if (verb === 'QUIT') {
      replies.push('221 2.0.0 Bye\r\n');
      return false;
    } else replies.push('502 5.5.2 Error: command not recognized\r\n');
    return true;
  };

  socket.on('data', (chunk: Buffer) => {
    const replies: string[] = [];
    let open = true;
    let rest: Buffer | null = chunk;
    while (rest && open) {
      if (inData) {
        const end = endIn(rest);
        if (end < 0) break;
        inData = false;
        countMessage(recipients);
        recipients = [];
        replies.push('250 2.0.0 Ok: queued\r\n');
        rest = end < rest.length ? rest.subarray(end) : null;
        continue;
      }
      lines += rest.toString('latin1');
      rest = null;
      for (let at = lines.indexOf('\n'); at >= 0 && open && !inData; at = lines.indexOf('\n')) {
        const line = lines.slice(0, at).replace(/\r$/, '');
        lines = lines.slice(at + 1);
        open = command(line, replies);
      }
      // Bytes after a DATA line are the message's first bytes.
      if (inData && lines) {
        rest = Buffer.from(lines, 'latin1');
        lines = '';
      }
    }
    if (replies.length) socket.write(replies.join(''));
    if (!open) socket.end();
  });
  // A client killed mid-message resets its connection: that is the workload, not a failure of the sink.
  socket.on('error', () => undefined);
  socket.write('220 sink.localhost ESMTP\r\n');
}

const server = net.createServer(serve);
server.listen(0, '127.0.0.1', () => reportTo((server.address() as net.AddressInfo).port));
