import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EnvSchema } from './config-env.ts';
import type { Config, Role } from './config-types.ts';
import type { S3Config } from './lib/storage.ts';

// The environment's schema and the Config type have files of their own; importers find them here as before.
export type { Config, Role } from './config-types.ts';

export class ConfigError extends Error {}

/**
 * What a production start refuses to do without. Outside production Herald fills these in (the built-in mailbox,
 * a secret generated into the data dir, http://localhost); in production each would be wrong in a way nobody sees
 * at once: mail not leaving, links signed with a secret other processes do not share, links to localhost.
 */
const productionRequirements: { name: 'SMTP_URL' | 'SESSION_SECRET' | 'PUBLIC_URL'; why: string }[] = [
  {
    name: 'SMTP_URL',
    why: 'your mail server, for example smtps://user:password@smtp.example.com:465 (outside production, mail goes to the built-in mailbox)',
  },
  {
    name: 'SESSION_SECRET',
    why: 'a secret of 32+ characters shared by every Herald process, for example the output of `openssl rand -base64 48`',
  },
  {
    name: 'PUBLIC_URL',
    why: 'the address people reach Herald at, for example https://herald.example.com (used in every emailed link)',
  },
];

/** Loopback names and addresses: where a relay counts as on this host. */
const isLoopback = (host: string) => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare.endsWith('.localhost') ||
    bare === '::1' ||
    (net.isIPv4(bare) && bare.startsWith('127.'))
  );
};

/** SMTP_TLS_CA_FILE read once (a file that cannot be read stops the start), and the verification opt-out's limits. */
function smtpTlsOf(
  smtpUrl: string | undefined,
  caFile: string | undefined,
  verify: boolean,
  repoRoot: string,
): Config['smtpTls'] {
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = fs.readFileSync(path.resolve(repoRoot, caFile), 'utf8');
    } catch (error) {
      throw new ConfigError(`SMTP_TLS_CA_FILE: cannot read ${caFile} (${(error as Error).message})`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new ConfigError(`SMTP_TLS_CA_FILE: ${caFile} holds no PEM certificate`);
  }
  if (!verify) {
    let host = '';
    try {
      host = smtpUrl ? new URL(smtpUrl).hostname : '';
    } catch {
      // SMTP_URL's own check names it.
    }
    if (!isLoopback(host))
      throw new ConfigError(
        "SMTP_TLS_VERIFY=false is only for a relay on this host (SMTP_URL on localhost or 127.0.0.1); give a remote relay's CA with SMTP_TLS_CA_FILE instead",
      );
  }
  return { ca, verify };
}

/** Parse an environment (process.env by default) into a Config, or throw a ConfigError saying what is wrong. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production') {
    const missing = productionRequirements
      .filter((required) => !e[required.name])
      .map((required) => `  ${required.name}: ${required.why}`);
    if (missing.length)
      throw new ConfigError(`NODE_ENV=production needs these settings:\n${missing.join('\n')}`);
  }
  const repoRoot = env.INIT_CWD ?? process.cwd();
  let s3: S3Config | undefined;
  if (e.S3_BUCKET || e.S3_ENDPOINT) {
    if (!e.S3_BUCKET || !e.S3_ENDPOINT || !e.S3_ACCESS_KEY_ID || !e.S3_SECRET_ACCESS_KEY) {
      throw new ConfigError(
        'S3 storage needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together.',
      );
    }
    s3 = {
      endpoint: e.S3_ENDPOINT,
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      publicUrl: e.S3_PUBLIC_URL ?? `${e.S3_ENDPOINT.replace(/\/+$/, '')}/${e.S3_BUCKET}`,
    };
  }
  const smtpTls = smtpTlsOf(
    e.SMTP_URL || undefined,
    e.SMTP_TLS_CA_FILE,
    e.SMTP_TLS_VERIFY === 'true',
    repoRoot,
  );
  if (e.EVENT_STORE === 'clickhouse' && !e.CLICKHOUSE_URL)
    throw new ConfigError(
      'EVENT_STORE=clickhouse needs CLICKHOUSE_URL: the address of ClickHouse, for example http://default:password@clickhouse:8123/herald',
    );
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(publicUrl))
    throw new ConfigError('PUBLIC_URL must start with http:// or https://');
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL || undefined,
    dataDir: path.resolve(repoRoot, e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    smtpUrl: e.SMTP_URL || undefined,
    smtpTls,
    mailFrom: e.MAIL_FROM,
    publicUrl,
    sessionSecret: e.SESSION_SECRET,
    google: {
      clientId: e.GOOGLE_CLIENT_ID || undefined,
      jwksUrl: e.GOOGLE_JWKS_URL,
      issuers: e.GOOGLE_ISSUERS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    },
    supportUrl: e.SUPPORT_URL,
    supportEmail: e.SUPPORT_EMAIL,
    trustProxy: e.TRUST_PROXY === 'true',
    workerConcurrency: e.WORKER_CONCURRENCY,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    webDistDir: e.WEB_DIST_DIR
      ? path.resolve(repoRoot, e.WEB_DIST_DIR)
      : path.resolve(import.meta.dirname, '../../web/dist'),
    useDevMailbox: !e.SMTP_URL && e.NODE_ENV !== 'production',
    s3,
    sending: {
      maxConnections: e.SMTP_MAX_CONNECTIONS,
      ratePerSecond: e.SMTP_RATE_PER_SECOND,
      devMailboxKeep: e.DEV_MAILBOX_KEEP,
      threads: e.SEND_THREADS ?? Math.max(1, Math.min(2, os.availableParallelism())),
      batchSize: e.SEND_BATCH_SIZE,
    },
    dns: {
      servers: (e.DNS_SERVERS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      timeoutMs: e.DNS_TIMEOUT_MS,
      spfInclude: e.SPF_INCLUDE?.toLowerCase(),
      returnPathDomain: e.RETURN_PATH_DOMAIN?.toLowerCase(),
    },
    bounces: {
      inboundSmtpPort: e.INBOUND_SMTP_PORT,
      sesTopicArns: (e.SES_SNS_TOPIC_ARNS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      postmarkAuth: e.POSTMARK_WEBHOOK_AUTH || undefined,
      sendgridPublicKey: e.SENDGRID_WEBHOOK_PUBLIC_KEY || undefined,
      mailgunSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY || undefined,
    },
    outgoing: {
      trustedAddresses: (e.OUTGOING_TRUSTED_ADDRESSES ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
      dnsServers: (e.OUTGOING_DNS_SERVERS ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
      slackWebhookHosts: (e.SLACK_WEBHOOK_HOSTS ?? 'hooks.slack.com')
        .split(',')
        .map((part) => part.trim().toLowerCase())
        .filter(Boolean),
    },
    billing: {
      mode: e.BILLING_MODE,
      chargebee:
        e.CHARGEBEE_SITE && e.CHARGEBEE_API_KEY
          ? {
              site: e.CHARGEBEE_SITE,
              apiKey: e.CHARGEBEE_API_KEY,
              webhookAuth: e.CHARGEBEE_WEBHOOK_AUTH,
              apiUrl: (e.CHARGEBEE_API_URL ?? `https://${e.CHARGEBEE_SITE}.chargebee.com/api/v2`).replace(
                /\/+$/,
                '',
              ),
            }
          : undefined,
      paypal:
        e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET
          ? {
              clientId: e.PAYPAL_CLIENT_ID,
              clientSecret: e.PAYPAL_CLIENT_SECRET,
              webhookId: e.PAYPAL_WEBHOOK_ID,
              apiUrl: e.PAYPAL_API_URL.replace(/\/+$/, ''),
            }
          : undefined,
    },
    ai:
      e.AI_BASE_URL && e.AI_API_KEY
        ? {
            baseUrl: e.AI_BASE_URL.replace(/\/+$/, ''),
            apiKey: e.AI_API_KEY,
            model: e.AI_MODEL,
            timeoutMs: e.AI_TIMEOUT_MS,
            monthlyTokens: e.AI_MONTHLY_TOKENS,
            requestsPerHour: e.AI_REQUESTS_PER_HOUR,
          }
        : undefined,
    eventStore:
      e.EVENT_STORE === 'clickhouse' && e.CLICKHOUSE_URL
        ? { kind: 'clickhouse', url: e.CLICKHOUSE_URL, cluster: e.CLICKHOUSE_CLUSTER }
        : { kind: 'postgres' },
    metrics: e.METRICS_PORT ? { port: e.METRICS_PORT, host: e.METRICS_HOST } : undefined,
  };
}

/** Parse `--role=all|api|worker` from the command line. */
export function parseRole(argv: string[]): Role {
  const arg = argv.find((a) => a.startsWith('--role='));
  const role = arg ? arg.slice('--role='.length) : 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') {
    throw new ConfigError(`Unknown role "${role}": use --role=all, --role=api or --role=worker.`);
  }
  return role;
}
