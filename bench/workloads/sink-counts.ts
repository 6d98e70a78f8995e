/**
 * What an SMTP sink process counts and tells its parent (broadcast-100k.ts's startSink): messages per recipient,
 * distinct recipients, recipients seen a second time, and when the first and the last message arrived. Both sinks (smtp-sink.ts,
 * smtp-sink-lean.ts) count a message here once its end-of-data line has arrived.
 */
const seen = new Set<string>();
let received = 0;
let duplicates = 0;
let firstAt = 0;
let lastAt = 0;

/** Count one message that arrived whole for `recipients`. */
export function countMessage(recipients: string[]): void {
  for (const recipient of recipients) {
    const address = recipient.toLowerCase();
    if (seen.has(address)) duplicates++;
    else seen.add(address);
    received++;
  }
  lastAt = Date.now();
  if (!firstAt) firstAt = lastAt;
}

/** Tell the parent the port once listening, and answer its `stats` and `reset` messages. */
export function reportTo(port: number): void {
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stats')
      process.send?.({ type: 'stats', received, distinct: seen.size, duplicates, firstAt, lastAt });
    if (message.type === 'reset') {
      seen.clear();
      received = 0;
      duplicates = 0;
      firstAt = 0;
    }
  });
  process.send?.({ type: 'ready', port });
}
