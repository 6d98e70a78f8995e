/**
 * The reader of a tracked email, named on the account's own site: a click to a page of the account's site
 * (the account's `site`, its subdomains, with or without www) carries `hrld_id`, the signed identity token the
 * site script reads (site-tracking/visitor-identity.ts). Links to anyone else's site never carry it, so no third
 * party learns who clicked. Each account's site host is kept in memory for a minute.
 */
import type pg from 'pg';
import { identityToken } from '../site-tracking/visitor-identity.ts';

const keepMs = 60_000;

export function createClickIdentity(pool: pg.Pool, secret: string) {
  const hosts = new Map<number, { host: string | null; at: number; loading?: Promise<string | null> }>();

  const load = async (accountId: number): Promise<string | null> => {
    const { rows } = await pool.query<{ site: string | null }>('select site from accounts where id = $1', [
      accountId,
    ]);
    try {
      return rows[0]?.site
        ? new URL(/^https?:\/\//i.test(rows[0].site) ? rows[0].site : `https://${rows[0].site}`).hostname
            .replace(/^www\./, '')
            .toLowerCase()
        : null;
    } catch {
      return null;
    }
  };

  const siteHost = async (accountId: number): Promise<string | null> => {
    const known = hosts.get(accountId);
    if (known && Date.now() - known.at < keepMs) return known.host;
    if (known?.loading) return known.loading;
    const loading = load(accountId).catch(() => null);
    hosts.set(accountId, { host: known?.host ?? null, at: 0, loading });
    const host = await loading;
    if (hosts.size > 10_000) hosts.clear();
    hosts.set(accountId, { host, at: Date.now() });
    return host;
  };

  /** The destination with `hrld_id` when it is a page of the account's site whose host is `host`. */
  const withIdentity = (url: string, host: string | null, accountId: number, personId: number): string => {
    if (!host) return url;
    const parsed = new URL(url);
    const hostname = parsed.hostname.toLowerCase().replace(/^www\./, '');
    if (hostname !== host && !hostname.endsWith(`.${host}`)) return url;
    parsed.searchParams.set('hrld_id', identityToken(secret, accountId, personId));
    return parsed.href;
  };

  return {
    /**
     * The destination, with `hrld_id` when it is a page of the account's site: at once when the account's site
     * is known (nearly every click), else once it is loaded.
     */
    target(url: string, accountId: number, personId: number): string | Promise<string> {
      const known = hosts.get(accountId);
      if (known && Date.now() - known.at < keepMs) return withIdentity(url, known.host, accountId, personId);
      return siteHost(accountId).then((host) => withIdentity(url, host, accountId, personId));
    },
  };
}
