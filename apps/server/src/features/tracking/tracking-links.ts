/**
 * Tracking URLs for one message, made in the sender threads for every message sent: one HMAC for the message
 * token, and link signatures (which do not depend on the recipient) kept in a bounded cache, so each link of an
 * email is signed once per thread rather than once per message. No database, nothing asynchronous.
 */
import { encodeMessage, maxLinkLength, signLink, type TrackedRef } from './tracking-token.ts';

export interface TrackedMessage {
  accountId: number;
  deliveryId: number;
  personId: number;
  emailId: number;
  sourceKind: 'broadcast' | 'flow' | 'transactional' | 'test';
  sourceId: number;
  variant: number;
  /** The flow of a flow's send step (sourceId is the step). */
  flowId?: number;
}

export interface MessageTracking {
  openPixelUrl: string;
  /** The start of every click link of the message (the redirect path and the message token). */
  clickPrefix: string;
  rewriteLink(url: string, index: number): string;
}

/** Path prefixes of the open pixel and the click redirect. */
export const openPath = '/t/o/';
export const clickPath = '/t/c/';

/** Signed link tails (`<signature>?u=<url>`) by account, email and URL; the oldest go past this many. */
const cacheLimit = 2000;
const linkTails = new Map<string, string>();

function linkTail(secret: string, accountId: number, emailId: number, url: string): string {
  const key = `${accountId}.${emailId}.${url}`;
  let tail = linkTails.get(key);
  if (tail === undefined) {
    tail = `${signLink(secret, accountId, emailId, url)}?u=${encodeURIComponent(url)}`;
    if (linkTails.size >= cacheLimit) linkTails.delete(linkTails.keys().next().value!);
    linkTails.set(key, tail);
  }
  return tail;
}

/**
 * The end of a destination's click link in an email (signature and destination), the same for every recipient; null
 * for a link too long to carry, which stays as written rather than making a URL that clients cut short.
 */
export function linkSuffix(secret: string, accountId: number, emailId: number, url: string): string | null {
  return url.length > maxLinkLength ? null : linkTail(secret, accountId, emailId, url);
}

/** publicUrl: config.publicUrl (no trailing slash). secret: the server secret string. */
export function trackingFor(secret: string, publicUrl: string, message: TrackedMessage): MessageTracking {
  const ref: TrackedRef = message;
  const token = encodeMessage(secret, ref, Date.now());
  const clickBase = `${publicUrl}${clickPath}${token}/`;
  return {
    openPixelUrl: `${publicUrl}${openPath}${token}`,
    clickPrefix: clickBase,
    rewriteLink(url: string): string {
      const suffix = linkSuffix(secret, message.accountId, message.emailId, url);
      return suffix === null ? url : clickBase + suffix;
    },
  };
}
