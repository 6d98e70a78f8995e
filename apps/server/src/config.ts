import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { S3Config } from './lib/storage.ts';

/** A DNS server address: an IP, an IPv4 with a port (127.0.0.1:5353) or a bracketed IPv6 with a port ([::1]:53). */
const isDnsServer = (value: string) => {
  if (net.isIP(value)) return true;
  const withPort = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  return Boolean(withPort && net.isIP(withPort[1] ?? withPort[2] ?? '') && Number(withPort[3]) <= 65535);
};

/**
 * The only reader of process.env. Every setting is validated once at start; the README's
 * configuration table lists the same names.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  SMTP_URL: z.string().optional(),
  SMTP_TLS_CA_FILE: z.string().min(1).optional(),
  SMTP_TLS_VERIFY: z.enum(['true', 'false']).default('true'),
  MAIL_FROM: z.string().default('Herald <no-reply@localhost>'),
  PUBLIC_URL: z.string().optional(),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters.').optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_JWKS_URL: z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: z.string().default('accounts.google.com,https://accounts.google.com'),
  SUPPORT_URL: z.url().optional(),
  SUPPORT_EMAIL: z.email().optional(),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  WEB_DIST_DIR: z.string().optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_PUBLIC_URL: z.url().optional(),
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(200).default(10),
  SMTP_RATE_PER_SECOND: z.coerce.number().int().min(0).max(100_000).default(0),
  DEV_MAILBOX_KEEP: z.coerce.number().int().min(10).max(1_000_000).default(1000),
  SEND_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  SEND_BATCH_SIZE: z.coerce.number().int().min(10).max(5000).default(500),
  DNS_SERVERS: z.string().optional(),
  DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3000),
  SPF_INCLUDE: z.string().regex(/^[a-z0-9._-]+$/i, 'SPF_INCLUDE must be a domain such as _spf.mailprovider.com').optional(),
  RETURN_PATH_DOMAIN: z.string().regex(/^[a-z0-9._-]+$/i, 'RETURN_PATH_DOMAIN must be a domain such as bounces.mailprovider.com').optional(),
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SES_SNS_TOPIC_ARNS: z.string().optional(),
  POSTMARK_WEBHOOK_AUTH: z.string().regex(/^[^:]+:.+$/, 'POSTMARK_WEBHOOK_AUTH must be user:password').optional(),
  SENDGRID_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional(),
  MAILGUN_WEBHOOK_SIGNING_KEY: z.string().min(1).optional(),
  OUTGOING_TRUSTED_ADDRESSES: z
    .string()
    .refine((value) => value.split(',').every((part) => part.trim() === '' || net.isIP(part.trim()) !== 0), 'OUTGOING_TRUSTED_ADDRESSES must be IP addresses separated by commas')
    .optional(),
  OUTGOING_DNS_SERVERS: z
    .string()
    .refine((value) => value.split(',').every((part) => part.trim() === '' || isDnsServer(part.trim())), 'OUTGOING_DNS_SERVERS must be DNS server addresses (ip or ip:port) separated by commas')
    .optional(),
  SLACK_WEBHOOK_HOSTS: z
    .string()
    .regex(/^[a-z0-9.:,\s-]*$/i, 'SLACK_WEBHOOK_HOSTS must be host names separated by commas, such as hooks.slack.com')
    .optional(),
  BILLING_MODE: z.enum(['off', 'plans']).default('off'),
  CHARGEBEE_SITE: z.string().regex(/^[a-z0-9-]+$/i, 'CHARGEBEE_SITE is the site name, such as acme or acme-test').optional(),
  CHARGEBEE_API_KEY: z.string().min(1).optional(),
  CHARGEBEE_WEBHOOK_AUTH: z.string().regex(/^[^:]+:.+$/, 'CHARGEBEE_WEBHOOK_AUTH must be user:password').optional(),
  CHARGEBEE_API_URL: z.url().optional(),
  PAYPAL_CLIENT_ID: z.string().min(1).optional(),
  PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
  PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
  PAYPAL_API_URL: z.url().default('https://api-m.paypal.com'),
  AI_BASE_URL: z.url().optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  AI_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  AI_MONTHLY_TOKENS: z.coerce.number().int().min(0).max(1_000_000_000).default(200_000),
  AI_REQUESTS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(30),
});

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  smtpUrl: string | undefined;
  /**
   * TLS towards SMTP_URL, for both mail paths (docs/broadcasts-and-sending.md, "Sending through a real mail server"):
   * extra trusted CA certificates (PEM, from SMTP_TLS_CA_FILE) and whether the certificate is checked at all
   * (SMTP_TLS_VERIFY=false, allowed only for a relay on this host).
   */
  smtpTls: { ca: string | undefined; verify: boolean };
  mailFrom: string;
  publicUrl: string;
  /** Set when unset in the environment: generated and kept in the data dir (see secret.ts). */
  sessionSecret: string | undefined;
  google: { clientId: string | undefined; jwksUrl: string; issuers: string[] };
  supportUrl: string | undefined;
  supportEmail: string | undefined;
  trustProxy: boolean;
  workerConcurrency: number;
  logLevel: string;
  /** How long a SIGTERM waits for requests, jobs and leased batches to finish before the process exits anyway. */
  shutdownTimeoutMs: number;
  webDistDir: string;
  /** Mail goes to the built-in mailbox (readable at /dev/mailbox) instead of SMTP. */
  useDevMailbox: boolean;
  /** S3-compatible storage for files; local disk under DATA_DIR/files when undefined. */
  s3: S3Config | undefined;
  /**
   * Bulk sending: SMTP connections in the pool, messages per second (0: as fast as the server takes them), mailbox
   * size, the sender threads that render and send (SEND_THREADS; default one per core, at most two), and the rows a
   * send claims at a time (SEND_BATCH_SIZE).
   */
  sending: { maxConnections: number; ratePerSecond: number; devMailboxKeep: number; threads: number; batchSize: number };
  /** Sender-domain checks: the DNS servers to ask (system ones when empty), the time to wait, what SPF must include, the bounce host. */
  dns: { servers: string[]; timeoutMs: number; spfInclude: string | undefined; returnPathDomain: string | undefined };
  /** Bounce and complaint intake: the inbound SMTP port (off when unset) and each provider webhook's key (refused when unset). */
  bounces: {
    inboundSmtpPort: number | undefined;
    sesTopicArns: string[];
    postmarkAuth: string | undefined;
    sendgridPublicKey: string | undefined;
    mailgunSigningKey: string | undefined;
  };
  /** Calls Herald makes to addresses users type (webhook steps): the private addresses the operator allows anyway. */
  outgoing: { trustedAddresses: string[]; /** Where outgoing calls resolve names (the system resolver when empty). */ dnsServers: string[]; /** Hosts whose /services/… URLs are accepted as Slack incoming webhooks. */ slackWebhookHosts: string[] };
  /**
   * Plans and billing (issue 21). `off` (the default, for self-hosting): no billing UI, no trial expiry, every account
   * unlimited. `plans`: the trial, the plan catalogue and limits; each provider is on when its settings are all set.
   */
  billing: {
    mode: 'off' | 'plans';
    chargebee: { site: string; apiKey: string; webhookAuth: string | undefined; apiUrl: string } | undefined;
    paypal: { clientId: string; clientSecret: string; webhookId: string | undefined; apiUrl: string } | undefined;
  };
  /** The AI writer's OpenAI-compatible provider; undefined when AI_BASE_URL or AI_API_KEY is unset (the writer is off). */
  ai: { baseUrl: string; apiKey: string; model: string; timeoutMs: number; monthlyTokens: number; requestsPerHour: number } | undefined;
}

export class ConfigError extends Error {}

/**
 * What a production start refuses to do without. Outside production Herald fills these in (the built-in mailbox,
 * a secret generated into the data dir, http://localhost); in production each would be wrong in a way nobody sees
 * at once: mail not leaving, links signed with a secret other processes do not share, links to localhost.
 */
const productionRequirements: { name: 'SMTP_URL' | 'SESSION_SECRET' | 'PUBLIC_URL'; why: string }[] = [
  { name: 'SMTP_URL', why: 'your mail server, for example smtps://user:password@smtp.example.com:465 (outside production, mail goes to the built-in mailbox)' },
  { name: 'SESSION_SECRET', why: 'a secret of 32+ characters shared by every Herald process, for example the output of `openssl rand -base64 48`' },
  { name: 'PUBLIC_URL', why: 'the address people reach Herald at, for example https://herald.example.com (used in every emailed link)' },
];

/** Loopback names and addresses: where a relay counts as on this host. */
const isLoopback = (host: string) => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1' || (net.isIPv4(bare) && bare.startsWith('127.'));
};

/** SMTP_TLS_CA_FILE read once (a file that cannot be read stops the start), and the verification opt-out's limits. */
function smtpTlsOf(smtpUrl: string | undefined, caFile: string | undefined, verify: boolean, repoRoot: string): Config['smtpTls'] {
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = fs.readFileSync(path.resolve(repoRoot, caFile), 'utf8');
    } catch (error) {
      throw new ConfigError(`SMTP_TLS_CA_FILE: cannot read ${caFile} (${(error as Error).message})`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`SMTP_TLS_CA_FILE: ${caFile} holds no PEM certificate`);
  }
  if (!verify) {
    let host = '';
    try {
      host = smtpUrl ? new URL(smtpUrl).hostname : '';
    } catch {
      // SMTP_URL's own check names it.
    }
    if (!isLoopback(host)) throw new ConfigError('SMTP_TLS_VERIFY=false is only for a relay on this host (SMTP_URL on localhost or 127.0.0.1); give a remote relay\'s CA with SMTP_TLS_CA_FILE instead');
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
    const missing = productionRequirements.filter((required) => !e[required.name]).map((required) => `  ${required.name}: ${required.why}`);
    if (missing.length) throw new ConfigError(`NODE_ENV=production needs these settings:\n${missing.join('\n')}`);
  }
  const repoRoot = env.INIT_CWD ?? process.cwd();
  let s3: S3Config | undefined;
  if (e.S3_BUCKET || e.S3_ENDPOINT) {
    if (!e.S3_BUCKET || !e.S3_ENDPOINT || !e.S3_ACCESS_KEY_ID || !e.S3_SECRET_ACCESS_KEY) {
      throw new ConfigError('S3 storage needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together.');
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
  const smtpTls = smtpTlsOf(e.SMTP_URL || undefined, e.SMTP_TLS_CA_FILE, e.SMTP_TLS_VERIFY === 'true', repoRoot);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(publicUrl)) throw new ConfigError('PUBLIC_URL must start with http:// or https://');
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
      issuers: e.GOOGLE_ISSUERS.split(',').map((s) => s.trim()).filter(Boolean),
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
      servers: (e.DNS_SERVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      timeoutMs: e.DNS_TIMEOUT_MS,
      spfInclude: e.SPF_INCLUDE?.toLowerCase(),
      returnPathDomain: e.RETURN_PATH_DOMAIN?.toLowerCase(),
    },
    bounces: {
      inboundSmtpPort: e.INBOUND_SMTP_PORT,
      sesTopicArns: (e.SES_SNS_TOPIC_ARNS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      postmarkAuth: e.POSTMARK_WEBHOOK_AUTH || undefined,
      sendgridPublicKey: e.SENDGRID_WEBHOOK_PUBLIC_KEY || undefined,
      mailgunSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY || undefined,
    },
    outgoing: {
      trustedAddresses: (e.OUTGOING_TRUSTED_ADDRESSES ?? '').split(',').map((part) => part.trim()).filter(Boolean),
      dnsServers: (e.OUTGOING_DNS_SERVERS ?? '').split(',').map((part) => part.trim()).filter(Boolean),
      slackWebhookHosts: (e.SLACK_WEBHOOK_HOSTS ?? 'hooks.slack.com').split(',').map((part) => part.trim().toLowerCase()).filter(Boolean),
    },
    billing: {
      mode: e.BILLING_MODE,
      chargebee:
        e.CHARGEBEE_SITE && e.CHARGEBEE_API_KEY
          ? {
              site: e.CHARGEBEE_SITE,
              apiKey: e.CHARGEBEE_API_KEY,
              webhookAuth: e.CHARGEBEE_WEBHOOK_AUTH,
              apiUrl: (e.CHARGEBEE_API_URL ?? `https://${e.CHARGEBEE_SITE}.chargebee.com/api/v2`).replace(/\/+$/, ''),
            }
          : undefined,
      paypal:
        e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET
          ? { clientId: e.PAYPAL_CLIENT_ID, clientSecret: e.PAYPAL_CLIENT_SECRET, webhookId: e.PAYPAL_WEBHOOK_ID, apiUrl: e.PAYPAL_API_URL.replace(/\/+$/, '') }
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
