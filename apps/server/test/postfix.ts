import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { until } from './until.ts';

const run = promisify(execFile);

/**
 * Debian's Postfix as the relay an operator points Herald at (docs/broadcasts-and-sending.md, "Sending through a
 * real mail server"): an instance of its own (configuration, queue and log in a temporary folder), listening on a
 * loopback port with STARTTLS offered, relaying everything it accepts to `relayTo` (the test's SMTP sink), so a
 * test sees both sides. `.ci/run` installs Postfix; elsewhere `postfixInstalled()` says whether it is here.
 */

export const postfixBinary = '/usr/sbin/postfix';
export const postfixInstalled = () =>
  fs.existsSync(postfixBinary) && fs.existsSync('/usr/lib/postfix/sbin/master');

/** A certificate authority and a server certificate it signed, as PEM files in `dir`. */
export interface TestCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A test CA and a certificate it signs for `names` (DNS names) and `addresses` (IP addresses), made with the
 * openssl command line.
 */
export async function makeCertificates(
  dir: string,
  {
    names,
    addresses,
    label = 'relay',
    ca,
  }: { names: string[]; addresses: string[]; label?: string; ca?: TestCertificates },
): Promise<TestCertificates> {
  fs.mkdirSync(dir, { recursive: true });
  const at = (file: string) => path.join(dir, `${label}-${file}`);
  // A CA of its own, unless signed by the one given.
  const caKey = ca ? ca.caFile.replace(/\.pem$/, '.key') : at('ca.key');
  const caFile = ca?.caFile ?? at('ca.pem');
  const keyFile = at('server.key');
  const csr = at('server.csr');
  const certFile = at('server.pem');
  const ext = at('server.ext');
  if (!ca)
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      `/CN=Herald test CA ${label}`,
    ]);
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    csr,
    '-subj',
    `/CN=${names[0] ?? addresses[0]}`,
  ]);
  const alt = [...names.map((n) => `DNS:${n}`), ...addresses.map((a) => `IP:${a}`)].join(',');
  fs.writeFileSync(
    ext,
    `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    certFile,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return { caFile, certFile, keyFile };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export interface PostfixRelay {
  port: number;
  /** Its log (Postfix's maillog_file): what it accepted, relayed and refused. */
  log(): string;
  /**
   * Change settings (postconf -e) and restart, ending every open session (a reload would let sessions in progress,
   * such as a client's pooled connection, go on with the old settings).
   */
  configure(settings: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start a Postfix instance on a free loopback port (IPv4 and IPv6), offering STARTTLS with `tls`, relaying to
 * `relayTo` (host:port). `settings` adds main.cf lines, e.g. `smtpd_recipient_restrictions` to answer 4xx.
 */
export async function startPostfixRelay(options: {
  relayTo: string;
  tls: TestCertificates;
  settings?: Record<string, string>;
}): Promise<PostfixRelay> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-postfix-'));
  // Postfix wants its folders owned by root and not writable by others.
  fs.chmodSync(dir, 0o755);
  const configDir = path.join(dir, 'etc');
  const queueDir = path.join(dir, 'queue');
  const dataDir = path.join(dir, 'data');
  for (const folder of [configDir, queueDir, dataDir]) fs.mkdirSync(folder, { mode: 0o755 });
  // Its data folder (locks, TLS session cache) belongs to the mail_owner.
  const idOf = async (flag: string) => Number((await run('id', [flag, 'postfix'])).stdout.trim());
  fs.chownSync(dataDir, await idOf('-u'), await idOf('-g'));
  const logFile = path.join(dir, 'maillog');
  const port = await freePort();
  const main: Record<string, string> = {
    compatibility_level: '3.6',
    queue_directory: queueDir,
    data_directory: dataDir,
    daemon_directory: '/usr/lib/postfix/sbin',
    shlib_directory: '/usr/lib/postfix',
    meta_directory: '/etc/postfix',
    command_directory: '/usr/sbin',
    mail_owner: 'postfix',
    setgid_group: 'postdrop',
    myhostname: 'relay.herald.test',
    mydomain: 'herald.test',
    myorigin: 'herald.test',
    mydestination: '',
    inet_interfaces: 'loopback-only',
    inet_protocols: 'all',
    mynetworks: '127.0.0.0/8 [::1]/128',
    smtpd_relay_restrictions: 'permit_mynetworks, reject_unauth_destination',
    relayhost: `[${options.relayTo.split(':')[0]}]:${options.relayTo.split(':')[1]}`,
    smtp_tls_security_level: 'none',
    smtpd_tls_security_level: 'may',
    smtpd_tls_cert_file: options.tls.certFile,
    smtpd_tls_key_file: options.tls.keyFile,
    smtpd_tls_loglevel: '1',
    maillog_file: logFile,
    maillog_file_prefixes: dir,
    // A test relay has no DNS for its peers.
    smtp_host_lookup: 'native',
    disable_dns_lookups: 'yes',
    smtp_dns_support_level: 'disabled',
    queue_run_delay: '1s',
    minimal_backoff_time: '1s',
    maximal_backoff_time: '2s',
    biff: 'no',
    ...options.settings,
  };
  fs.writeFileSync(
    path.join(configDir, 'main.cf'),
    Object.entries(main)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n') + '\n',
  );
  const services = [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    `[::1]:${port} inet n - n - - smtpd`,
    'pickup    unix  n       -       n       60      1       pickup',
    'cleanup   unix  n       -       n       -       0       cleanup',
    'qmgr      unix  n       -       n       300     1       qmgr',
    'tlsmgr    unix  -       -       n       1000?   1       tlsmgr',
    'rewrite   unix  -       -       n       -       -       trivial-rewrite',
    'bounce    unix  -       -       n       -       0       bounce',
    'defer     unix  -       -       n       -       0       bounce',
    'trace     unix  -       -       n       -       0       bounce',
    'verify    unix  -       -       n       -       1       verify',
    'flush     unix  n       -       n       1000?   0       flush',
    'proxymap  unix  -       -       n       -       -       proxymap',
    'smtp      unix  -       -       n       -       -       smtp',
    'relay     unix  -       -       n       -       -       smtp',
    'showq     unix  n       -       n       -       -       showq',
    'error     unix  -       -       n       -       -       error',
    'retry     unix  -       -       n       -       -       error',
    'discard   unix  -       -       n       -       -       discard',
    'local     unix  -       n       n       -       -       local',
    'anvil     unix  -       -       n       -       1       anvil',
    'scache    unix  -       -       n       -       1       scache',
    'postlog   unix-dgram n  -       n       -       1       postlogd',
  ];
  fs.writeFileSync(path.join(configDir, 'master.cf'), services.join('\n') + '\n');
  const postfix = (...args: string[]) =>
    run(postfixBinary, ['-c', configDir, ...args], { env: { ...process.env, MAIL_CONFIG: configDir } });
  const start = async () => {
    await postfix('start').catch((error: Error) => {
      throw new Error(
        `Postfix did not start: ${error.message}\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '(no log)'}`,
      );
    });
    await answering(port, logFile);
  };
  await start();
  return {
    port,
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    async configure(settings) {
      await run('/usr/sbin/postconf', [
        '-c',
        configDir,
        '-e',
        ...Object.entries(settings).map(([k, v]) => `${k}=${v}`),
      ]);
      await postfix('stop');
      await start();
    },
    async stop() {
      await postfix('stop').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Wait until the relay answers its greeting. */
async function answering(port: number, logFile: string) {
  const greeted = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('data', (chunk) => {
        socket.end('QUIT\r\n');
        resolve(chunk.toString().startsWith('220'));
      });
      socket.once('error', () => resolve(false));
    });
  await until(greeted, {
    timeout: 20_000,
    interval: 200,
    message: () =>
      `Postfix did not answer on port ${port}:\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '(no log)'}\n`,
  });
}
