import type { S3Config } from './lib/storage.ts';

/** Which part of Herald a process runs: `--role=all|api|worker` (parseRole in config.ts). */
export type Role = 'all' | 'api' | 'worker';

/** The configuration every part of the server is given, as loadConfig (config.ts) makes it from the environment. */
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
  sending: {
    maxConnections: number;
    ratePerSecond: number;
    devMailboxKeep: number;
    threads: number;
    batchSize: number;
  };
  /** Sender-domain checks: the DNS servers to ask (system ones when empty), the time to wait, what SPF must include, the bounce host. */
  dns: {
    servers: string[];
    timeoutMs: number;
    spfInclude: string | undefined;
    returnPathDomain: string | undefined;
  };
  /** Bounce and complaint intake: the inbound SMTP port (off when unset) and each provider webhook's key (refused when unset). */
  bounces: {
    inboundSmtpPort: number | undefined;
    sesTopicArns: string[];
    postmarkAuth: string | undefined;
    sendgridPublicKey: string | undefined;
    mailgunSigningKey: string | undefined;
  };
  /** Calls Herald makes to addresses users type (webhook steps): the private addresses the operator allows anyway. */
  outgoing: {
    trustedAddresses: string[];
    /** Where outgoing calls resolve names (the system resolver when empty). */ dnsServers: string[];
    /** Hosts whose /services/… URLs are accepted as Slack incoming webhooks. */ slackWebhookHosts: string[];
  };
  /**
   * Plans and billing (issue 21). `off` (the default, for self-hosting): no billing UI, no trial expiry, every account
   * unlimited. `plans`: the trial, the plan catalogue and limits; each provider is on when its settings are all set.
   */
  billing: {
    mode: 'off' | 'plans';
    chargebee: { site: string; apiKey: string; webhookAuth: string | undefined; apiUrl: string } | undefined;
    paypal:
      { clientId: string; clientSecret: string; webhookId: string | undefined; apiUrl: string } | undefined;
  };
  /** The AI writer's OpenAI-compatible provider; undefined when AI_BASE_URL or AI_API_KEY is unset (the writer is off). */
  ai:
    | {
        baseUrl: string;
        apiKey: string;
        model: string;
        timeoutMs: number;
        monthlyTokens: number;
        requestsPerHour: number;
      }
    | undefined;
  /**
   * Where events live (docs/scaling.md): `postgres` (the default, today's tables) or `clickhouse`, with the address
   * of ClickHouse (an http(s) URL, or `chdb:<dir>` for the engine embedded in the process) and, for a ClickHouse
   * cluster, its name (replicated local tables and a distributed table sharded by account).
   */
  eventStore: { kind: 'postgres' } | { kind: 'clickhouse'; url: string; cluster: string | undefined };
  /** Prometheus metrics on an internal port (off when METRICS_PORT is unset). */
  metrics: { port: number; host: string } | undefined;
}
