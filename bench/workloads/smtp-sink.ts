import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP sink for the sending workloads, run as its own process (so it has its own core): it accepts
 * every message, counts them, and reports to the parent how many arrived, for how many distinct recipients,
 * and how many arrived for a recipient a second time.
 */
const seen = new Set<string>();
let received = 0;
let duplicates = 0;
let lastAt = 0;

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      for (const rcpt of session.envelope.rcptTo) {
        const address = rcpt.address.toLowerCase();
        if (seen.has(address)) duplicates++;
        else seen.add(address);
        received++;
      }
      lastAt = Date.now();
      callback();
    });
  },
});

// A client killed mid-message resets its connection: that is the workload, not a failure of the sink.
server.on('error', () => undefined);

// Replies go out at once (no Nagle delay waiting for the client's acknowledgement).
server.server.on('connection', (socket: import('node:net').Socket) => socket.setNoDelay(true));

server.listen(0, '127.0.0.1', () => {
  const { port } = server.server.address() as { port: number };
  process.send?.({ type: 'ready', port });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'stats') process.send?.({ type: 'stats', received, distinct: seen.size, duplicates, lastAt });
  if (message.type === 'reset') {
    seen.clear();
    received = 0;
    duplicates = 0;
  }
});
