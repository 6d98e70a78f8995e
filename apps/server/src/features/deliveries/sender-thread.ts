/**
 * A sender thread: renders, writes as MIME, signs and sends the rows the main thread claimed, over its own share
 * of the SMTP connections, and journals each message just before its final dot (send-journal.ts). It holds no
 * database connection: the main thread claims, records and finishes. Each connection renders its next message
 * only when it is free, so a thread holds a handful of messages at a time whatever the batch size.
 */
import { parentPort, workerData } from 'node:worker_threads';
import crypto from 'node:crypto';
import {
  dkimSign,
  joinPieces,
  parseSources,
  planEmail,
  renderCompiled,
  toMime,
  writePlannedPieces,
  type CompiledEmail,
  type EmailPlan,
} from '@herald/email/sending';
import { recipientToken } from '../preferences/preference-links.ts';
import { linkSuffix, trackingFor } from '../tracking/tracking-links.ts';
import { fenceOf, fenceOpen, type LeaseFence } from './lease-fence.ts';
import { SendJournal } from './send-journal.ts';
import type {
  FromThread,
  ThreadContent,
  ThreadFailed,
  ThreadInit,
  ThreadRow,
  ThreadRows,
  ThreadSent,
  ToThread,
} from './sender-protocol.ts';
import { createSendTransport } from './transport.ts';

const init = workerData as ThreadInit;
const port = parentPort!;
const journal = new SendJournal(init.journalFile);
const transport = createSendTransport({
  smtpUrl: init.config.smtpUrl,
  tls: init.config.smtpTls,
  connections: init.connections,
  ratePerSecond: init.ratePerSecond,
});
const base = init.config.publicUrl;
const host = new URL(base).hostname || 'localhost';

interface Compiled {
  content: ThreadContent;
  compiled: CompiledEmail | { refused: string };
  /** The email planned for writing to SMTP (message-plan.ts in packages/email), made with the first message that uses it. */
  plan?: EmailPlan;
}
const contents = new Map<string, Compiled>();

/** The Message-ID of a delivery: stable, so a bounce finds its row and a repeated send keeps its identity. */
const messageIdOf = (accountId: number, id: number) =>
  `<${crypto.createHash('sha256').update(`delivery:${accountId}:${id}`).digest('hex').slice(0, 32)}@${host}>`;

function post(message: FromThread) {
  port.postMessage(message);
}

interface BatchOutcomes {
  sent: ThreadSent[];
  failed: ThreadFailed[];
  withdrawn: number[];
}

async function sendRow(entry: Compiled, row: ThreadRow, fence: LeaseFence, out: BatchOutcomes) {
  const { sent, failed } = out;
  const { content, compiled } = entry;
  if ('refused' in compiled) {
    failed.push({ id: row.id, error: compiled.refused, permanent: true });
    return;
  }
  const messageId = messageIdOf(content.accountId, row.id);
  // The batch's lease is checked as a connection takes the message (lease-fence.ts): past its fence, another worker
  // may hold the row, so the message is withdrawn rather than started.
  let withdrawn = false;
  // Written when a connection is free to take it: a thread holds only the messages being sent.
  const prepare = () => {
    if (!fenceOpen(fence)) {
      withdrawn = true;
      throw new Error('The lease of this message ran out before it could be sent.');
    }
    // Unsubscribe and preference links (and the List-Unsubscribe headers) belong to marketing mail.
    const links =
      row.personId === null || content.category.type !== 'marketing'
        ? {}
        : (() => {
            const token = recipientToken(init.secret, {
              accountId: content.accountId,
              personId: row.personId,
              categoryId: content.category.id || null,
              source: `${content.kind}:${content.sourceId}`,
            });
            return {
              preferencesUrl: `${base}/public/subscription-preferences?token=${token}`,
              unsubscribeUrl: `${base}/public/unsubscribe?token=${token}`,
            };
          })();
    const person = { ...(row.person ?? { email: row.to }), ...content.data };
    // Opens and clicks of a person's message come back to the tracking endpoints (features/tracking).
    const tracking =
      content.tracking && row.personId !== null
        ? trackingFor(init.secret, base, {
            accountId: content.accountId,
            deliveryId: row.id,
            personId: row.personId,
            emailId: content.emailId,
            sourceKind: content.kind,
            sourceId: content.sourceId,
            variant: content.variant,
            ...(content.flowId !== null ? { flowId: content.flowId } : {}),
          })
        : null;
    // To an SMTP server, a person's message is written from the email's plan: the static markup's rewriting, escaping
    // and line breaking were done once for the whole send. The built-in mailbox keeps the rendered parts, so it
    // renders them whole.
    if (init.config.smtpUrl && (tracking !== null || !content.tracking)) {
      entry.plan ??= planEmail(compiled, {
        ...(content.utmCampaign ? { utmCampaign: content.utmCampaign } : {}),
        ...(content.tracking
          ? {
              tracking: {
                suffixFor: (target: string) =>
                  linkSuffix(init.secret, content.accountId, content.emailId, target),
              },
            }
          : {}),
      });
      const planned = writePlannedPieces(entry.plan, person as never, content.account, {
        messageId,
        ...links,
        ...(tracking ? { openPixelUrl: tracking.openPixelUrl, linkPrefix: tracking.clickPrefix } : {}),
        mime: { from: content.from, to: row.to, replyTo: content.replyTo },
      });
      // Unsigned, the message stays in pieces until the connection writes it; a signature needs it whole.
      const raw = content.dkim ? dkimSign(joinPieces(planned.message), content.dkim) : planned.message;
      return {
        message: { envelope: { from: content.fromEmail, to: row.to }, raw, wireReady: true },
        summary: { to: row.to, from: content.from, subject: planned.subject, text: '', html: null },
      };
    }
    const rendered = renderCompiled(compiled, person as never, content.account, {
      messageId,
      ...links,
      ...(content.utmCampaign ? { utmCampaign: content.utmCampaign } : {}),
      ...(tracking ? { openPixelUrl: tracking.openPixelUrl, rewriteLink: tracking.rewriteLink } : {}),
    });
    const mime = toMime({
      from: content.from,
      to: row.to,
      replyTo: content.replyTo,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      messageId,
      headers: rendered.headers,
    });
    const raw = content.dkim ? dkimSign(mime, content.dkim) : mime;
    return {
      message: { envelope: { from: content.fromEmail, to: row.to }, raw, wireReady: true },
      summary: {
        to: row.to,
        from: content.from,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
      },
    };
  };
  // The journal lists the message from just before its dot; a dot that has to wait in the process takes the line
  // back until it has left (smtp-client.ts DotHooks).
  let journaled = false;
  const listed = () => {
    journal.sent({ accountId: content.accountId, id: row.id, messageId });
    journaled = true;
  };
  const outcome = await transport.send(prepare, {
    sending: listed,
    held: () => {
      journal.notSent(content.accountId, row.id);
      journaled = false;
    },
    left: listed,
  });
  if (outcome.ok) sent.push({ id: row.id, messageId, response: outcome.response });
  else if (withdrawn) out.withdrawn.push(row.id);
  else {
    // Refused after the dot, or the connection dropped before the answer: not sent, and the journal says so.
    if (journaled) journal.notSent(content.accountId, row.id);
    failed.push({
      id: row.id,
      error: outcome.error,
      permanent: outcome.permanent,
      ...(outcome.opening ? { opening: outcome.opening } : {}),
    });
  }
}

/** The parsed content of a key, parsed again when its sources differ; the oldest go past 200 keys. */
function compiledFor(content: ThreadContent): Compiled {
  const known = contents.get(content.key);
  const same = (a: ThreadContent['sources'], b: ThreadContent['sources']) =>
    a.html === b.html && a.text === b.text && a.subject === b.subject && a.preheader === b.preheader;
  if (known && same(known.content.sources, content.sources)) {
    // The plan holds the link rewriting: UTM campaign (the email's name) or tracking changed means a new one.
    if (known.content.utmCampaign !== content.utmCampaign || known.content.tracking !== content.tracking)
      delete known.plan;
    known.content = content;
    return known;
  }
  let compiled: Compiled['compiled'];
  try {
    compiled = parseSources(content.sources);
  } catch (error) {
    compiled = { refused: error instanceof Error ? error.message : String(error) };
  }
  const entry = { content, compiled };
  contents.delete(content.key);
  contents.set(content.key, entry);
  if (contents.size > 200) contents.delete(contents.keys().next().value!);
  return entry;
}

async function runBatch(
  batch: number,
  content: ThreadContent,
  given: ThreadRows,
  fenceBuffer: SharedArrayBuffer,
) {
  const entry = compiledFor(content);
  const rows = Array.isArray(given) ? given : (JSON.parse(given.json) as ThreadRow[]);
  const fence = fenceOf(fenceBuffer);
  const out: BatchOutcomes = { sent: [], failed: [], withdrawn: [] };
  await Promise.all(rows.map((row) => sendRow(entry, row, fence, out)));
  const mailbox = transport.takeMailbox().slice(-init.config.sending.devMailboxKeep);
  post({ t: 'done', batch, ...out, mailbox });
}

port.on('message', (message: ToThread) => {
  switch (message.t) {
    case 'batch':
      void runBatch(message.batch, message.content, message.rows, message.fence);
      return;
    case 'recorded':
      journal.recorded(message.count);
      return;
    case 'close':
      transport.close();
      journal.close();
      post({ t: 'closed' });
      return;
  }
});
