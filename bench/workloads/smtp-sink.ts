import { SMTPServer } from 'smtp-server';
import { countMessage, reportTo } from './sink-counts.ts';

/**
 * A local SMTP sink for the sending workloads, run as its own process (so it has its own core): it accepts
 * every message, counts them, and reports to the parent how many arrived, for how many distinct recipients,
 * and how many arrived for a recipient a second time.
 */
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      countMessage(session.envelope.rcptTo.map((rcpt) => rcpt.address));
      callback();
    });
  },
});

// A client killed mid-message resets its connection: that is the workload, not a failure of the sink.
server.on('error', () => undefined);

// Replies go out at once (no Nagle delay waiting for the client's acknowledgement).
server.server.on('connection', (socket: import('node:net').Socket) => socket.setNoDelay(true));

server.listen(0, '127.0.0.1', () => reportTo((server.server.address() as { port: number }).port));
