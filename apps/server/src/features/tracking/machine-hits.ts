/**
 * Which tracking hits a person made and which a machine made (docs/tracking-and-metrics.md, "Email tracking"). Apple Mail
 * Privacy Protection fetches every image of a message through Apple's proxy when it arrives, with the bare user
 * agent `Mozilla/5.0`; security gateways follow every link of a message as it is delivered, with their own
 * agents or a headless browser, often with HEAD. Those hits are recorded (a timeline shows them) with
 * `machine: true`, and unique opens and clicks leave them out.
 */
import type { TrackingUserAgentClass } from '@herald/contracts';
import { recentValues } from '../../lib/recent-values.ts';

/** The user agent class recorded with a hit. */
export type UserAgentClass = TrackingUserAgentClass;

/** Seconds after sending within which a hit is taken for a machine's: no person opens a message that fast. */
export const machineWindowSeconds = 2;

const scannerPattern =
  /bot\b|crawl|spider|scan|preview|headless|python|curl|wget|go-http|java\/|okhttp|libwww|httpclient|axios|node-fetch|undici|barracuda|mimecast|proofpoint|symantec|messagelabs|trend ?micro|fortinet|sophos|cisco|ironport|forcepoint|zscaler|safelinks/i;
const imageProxyPattern = /googleimageproxy|ggpht\.com|yahoomailproxy|ymailproxy/i;
const mobilePattern = /mobile|iphone|ipad|android/i;

/** Classes of the user agents seen lately: a few mail clients and browsers make most hits. */
const classOf = recentValues(1000, classify);

export function userAgentClass(userAgent: string | undefined): UserAgentClass {
  return userAgent === undefined ? 'unknown' : classOf(userAgent);
}

function classify(userAgent: string): UserAgentClass {
  const agent = userAgent.trim();
  if (agent === '') return 'unknown';
  // Apple's proxy says nothing but the product token; a mail client or browser always says more.
  if (agent === 'Mozilla/5.0') return 'privacy-proxy';
  if (imageProxyPattern.test(agent)) return 'image-proxy';
  if (scannerPattern.test(agent)) return 'scanner';
  return mobilePattern.test(agent) ? 'mobile' : 'desktop';
}

/**
 * The rule: a hit is a machine's when it is a HEAD request, when its user agent is missing, Apple's proxy or a
 * scanner, or when it comes within two seconds of sending. Gmail's and Yahoo's image proxies fetch when the
 * person opens the message, so their opens count.
 */
export function isMachineHit(agentClass: UserAgentClass, isHead: boolean, secondsSinceSent: number): boolean {
  return (
    isHead ||
    agentClass === 'privacy-proxy' ||
    agentClass === 'scanner' ||
    agentClass === 'unknown' ||
    secondsSinceSent < machineWindowSeconds
  );
}
