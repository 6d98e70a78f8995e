import type { CategoryType } from '@herald/contracts';
import type { EmailSources } from '@herald/email/sending';
import type { Config } from '../../config.ts';
import type { SourceKind } from './deliveries.service.ts';
import type { MailboxRow } from './transport.ts';

/** What the main thread and a sender thread (sender-thread.ts) say to each other. */

export interface ThreadInit {
  config: Pick<Config, 'publicUrl' | 'smtpUrl' | 'smtpTls'> & { sending: Config['sending'] };
  secret: string;
  /** This thread's share of the SMTP connections and of the rate. */
  connections: number;
  ratePerSecond: number;
  journalFile: string;
}

/** What a source sends for one email and variant, ready to compile in the thread. */
export interface ThreadContent {
  key: string;
  accountId: number;
  kind: SourceKind;
  sourceId: number;
  /** A flow's mail: the flow of the send step (sourceId); null for other sources. */
  flowId: number | null;
  emailId: number;
  /** The A/B variant (1-based), 0 outside a test. */
  variant: number;
  /** Open pixel and click redirects in each message to a person (not in test sends). */
  tracking: boolean;
  /** The email compiled once in the main thread (CSS inlined, text part derived), as Liquid text. */
  sources: EmailSources;
  from: string;
  fromEmail: string;
  replyTo: string | null;
  category: { id: number; type: CategoryType };
  dkim: { domainName: string; keySelector: string; privateKey: string } | null;
  utmCampaign: string | undefined;
  data: Record<string, unknown> | undefined;
  account: { name: string | null; mailingAddress: string | null; site: string | null };
}

export interface ThreadRow {
  id: number;
  to: string;
  personId: number | null;
  /** The person as templates see them (fields flattened); null for an address-only send. */
  person: Record<string, unknown> | null;
}

/** A batch's rows: a list, or the JSON text of one as PostgreSQL wrote it (the thread parses it) and its length. */
export type ThreadRows = ThreadRow[] | { json: string; count: number };

export type ToThread =
  /** The content rides with every batch (a few kB); the thread compiles it once per key and content. */
  /**
   * `fence` holds the batch's lease end (epoch milliseconds, a BigInt64Array of one) as the main thread renews it,
   * 0 once another worker may hold the rows (lease-fence.ts): the thread starts no message past it.
   */
  | { t: 'batch'; batch: number; content: ThreadContent; rows: ThreadRows; fence: SharedArrayBuffer }
  | { t: 'recorded'; count: number }
  | { t: 'close' };

export interface ThreadSent {
  id: number;
  messageId: string;
  response: string;
}

export interface ThreadFailed {
  id: number;
  error: string;
  /** A 5xx reply or a message that cannot be rendered: trying again cannot help. */
  permanent: boolean;
  /** The connection could not be opened (smtp-client.ts SmtpError.opening): the relay or the settings, not the message. */
  opening?: 'connect' | 'tls' | 'login';
}

export type FromThread =
  | {
      t: 'done';
      batch: number;
      sent: ThreadSent[];
      failed: ThreadFailed[];
      /** Rows not started because the batch's lease fence had passed: neither sent nor failed, left to their lease. */
      withdrawn: number[];
      mailbox: MailboxRow[];
    }
  | { t: 'closed' };
