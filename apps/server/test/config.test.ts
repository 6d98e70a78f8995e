import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseRole } from '../src/config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.useDevMailbox).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.embeddedPgPort).not.toBe(5432);
    expect(config.dataDir).toMatch(/data$/);
  });

  it('derives PUBLIC_URL from PORT and trims a trailing slash', () => {
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
    expect(loadConfig({ PUBLIC_URL: 'https://mail.example.com/' }).publicUrl).toBe(
      'https://mail.example.com',
    );
  });

  it('refuses to start in production without its mail server, secret and public address, naming each', () => {
    const production = {
      NODE_ENV: 'production',
      SMTP_URL: 'smtp://mx:25',
      SESSION_SECRET: 's'.repeat(40),
      PUBLIC_URL: 'https://herald.example.com',
    };
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /SMTP_URL: .*\n {2}SESSION_SECRET: .*\n {2}PUBLIC_URL: /,
    );
    for (const name of ['SMTP_URL', 'SESSION_SECRET', 'PUBLIC_URL'] as const) {
      const message = (() => {
        try {
          loadConfig({ ...production, [name]: undefined });
          return '';
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(message.split('\n').slice(1)).toEqual([expect.stringMatching(new RegExp(`^  ${name}: `))]);
    }
    expect(loadConfig(production).useDevMailbox).toBe(false);
    expect(loadConfig(production).shutdownTimeoutMs).toBe(30_000);
  });

  it('names the bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ SESSION_SECRET: 'short' })).toThrow(/SESSION_SECRET/);
    expect(() => loadConfig({ PUBLIC_URL: 'localhost:3000' })).toThrow(/PUBLIC_URL/);
  });

  it('shares sending out between sender threads: one per core by default, at most two, SEND_THREADS to choose', () => {
    expect(loadConfig({}).sending.threads).toBeGreaterThanOrEqual(1);
    expect(loadConfig({}).sending.threads).toBeLessThanOrEqual(2);
    expect(loadConfig({ SEND_THREADS: '4' }).sending.threads).toBe(4);
    expect(() => loadConfig({ SEND_THREADS: '0' })).toThrow(/SEND_THREADS/);
  });

  it('parses --role', () => {
    expect(parseRole([])).toBe('all');
    expect(parseRole(['--role=worker'])).toBe('worker');
    expect(parseRole(['--role=api'])).toBe('api');
    expect(() => parseRole(['--role=both'])).toThrow(/Unknown role/);
  });
});

describe('S3 configuration', () => {
  it('is off by default, complete when given, and refused when partial', () => {
    expect(loadConfig({}).s3).toBeUndefined();
    const s3 = loadConfig({
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_BUCKET: 'b',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    }).s3;
    expect(s3).toMatchObject({ bucket: 'b', region: 'us-east-1', publicUrl: 'http://127.0.0.1:9000/b' });
    expect(() => loadConfig({ S3_BUCKET: 'b' })).toThrow(/S3_ENDPOINT, S3_BUCKET/);
  });
});

describe('SMTP TLS configuration', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it('checks certificates with the system CAs by default; SMTP_TLS_CA_FILE adds one, read at start', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://relay.example.com:587' }).smtpTls).toEqual({
      ca: undefined,
      verify: true,
    });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ca-')), 'ca.pem');
    fs.writeFileSync(file, pem);
    expect(loadConfig({ SMTP_URL: 'smtp://10.0.0.5:25', SMTP_TLS_CA_FILE: file }).smtpTls).toEqual({
      ca: pem,
      verify: true,
    });
  });

  it('refuses a CA file it cannot read or that holds no certificate, naming it', () => {
    expect(() => loadConfig({ SMTP_TLS_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      /^SMTP_TLS_CA_FILE: cannot read \/nonexistent\/ca\.pem \(ENOENT/,
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ca-')), 'not-a-ca.txt');
    fs.writeFileSync(file, 'hello');
    expect(() => loadConfig({ SMTP_TLS_CA_FILE: file })).toThrow(
      `SMTP_TLS_CA_FILE: ${file} holds no PEM certificate`,
    );
  });

  it('lets SMTP_TLS_VERIFY=false skip the check only for a relay on this host', () => {
    for (const url of [
      'smtp://127.0.0.1:2525',
      'smtp://localhost:25',
      'smtp://[::1]:25',
      'smtps://u:p@127.0.0.2:465',
    ]) {
      expect(loadConfig({ SMTP_URL: url, SMTP_TLS_VERIFY: 'false' }).smtpTls.verify).toBe(false);
    }
    for (const url of ['smtp://10.0.0.5:25', 'smtp://relay.example.com:587', undefined]) {
      expect(() => loadConfig({ SMTP_URL: url, SMTP_TLS_VERIFY: 'false' })).toThrow(
        /^SMTP_TLS_VERIFY=false is only for a relay on this host/,
      );
    }
    expect(() => loadConfig({ SMTP_TLS_VERIFY: 'no' })).toThrow(/SMTP_TLS_VERIFY/);
  });
});
