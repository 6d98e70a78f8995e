import net from 'node:net';
import { z } from 'zod';

/** A DNS server address: an IP, an IPv4 with a port (127.0.0.1:5353) or a bracketed IPv6 with a port ([::1]:53). */
const isDnsServer = (value: string) => {
  if (net.isIP(value)) return true;
  const withPort = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  return Boolean(withPort && net.isIP(withPort[1] ?? withPort[2] ?? '') && Number(withPort[3]) <= 65535);
};

/**
 * The environment Herald reads (loadConfig in config.ts is the only reader of process.env). Every setting is
 * validated once at start; the README's configuration table lists the same names.
 */
export const EnvSchema = z.object({
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
  SPF_INCLUDE: z
    .string()
    .regex(/^[a-z0-9._-]+$/i, 'SPF_INCLUDE must be a domain such as _spf.mailprovider.com')
    .optional(),
  RETURN_PATH_DOMAIN: z
    .string()
    .regex(/^[a-z0-9._-]+$/i, 'RETURN_PATH_DOMAIN must be a domain such as bounces.mailprovider.com')
    .optional(),
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SES_SNS_TOPIC_ARNS: z.string().optional(),
  POSTMARK_WEBHOOK_AUTH: z
    .string()
    .regex(/^[^:]+:.+$/, 'POSTMARK_WEBHOOK_AUTH must be user:password')
    .optional(),
  SENDGRID_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional(),
  MAILGUN_WEBHOOK_SIGNING_KEY: z.string().min(1).optional(),
  OUTGOING_TRUSTED_ADDRESSES: z
    .string()
    .refine(
      (value) => value.split(',').every((part) => part.trim() === '' || net.isIP(part.trim()) !== 0),
      'OUTGOING_TRUSTED_ADDRESSES must be IP addresses separated by commas',
    )
    .optional(),
  OUTGOING_DNS_SERVERS: z
    .string()
    .refine(
      (value) => value.split(',').every((part) => part.trim() === '' || isDnsServer(part.trim())),
      'OUTGOING_DNS_SERVERS must be DNS server addresses (ip or ip:port) separated by commas',
    )
    .optional(),
  SLACK_WEBHOOK_HOSTS: z
    .string()
    .regex(
      /^[a-z0-9.:,\s-]*$/i,
      'SLACK_WEBHOOK_HOSTS must be host names separated by commas, such as hooks.slack.com',
    )
    .optional(),
  BILLING_MODE: z.enum(['off', 'plans']).default('off'),
  CHARGEBEE_SITE: z
    .string()
    .regex(/^[a-z0-9-]+$/i, 'CHARGEBEE_SITE is the site name, such as acme or acme-test')
    .optional(),
  CHARGEBEE_API_KEY: z.string().min(1).optional(),
  CHARGEBEE_WEBHOOK_AUTH: z
    .string()
    .regex(/^[^:]+:.+$/, 'CHARGEBEE_WEBHOOK_AUTH must be user:password')
    .optional(),
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
  EVENT_STORE: z.enum(['postgres', 'clickhouse']).default('postgres'),
  CLICKHOUSE_URL: z
    .string()
    .regex(
      /^(https?:\/\/|chdb:)/,
      'CLICKHOUSE_URL must be an http(s):// address of ClickHouse (http://user:password@host:8123/herald) or chdb:<directory> for the embedded engine',
    )
    .optional(),
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(
      /^[a-z0-9_]+$/i,
      'CLICKHOUSE_CLUSTER is the name of a cluster in ClickHouse, such as herald_cluster',
    )
    .optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
});
