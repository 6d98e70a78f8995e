import { TrackingApiResult, type TrackingMessageType } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { receive } from './tracking-api.service.ts';

/** Each call's full path and the browser library's one-letter path (analytics.js posts to `/v1/t`, `/v1/b`…). */
const calls: { kind: 'batch' | TrackingMessageType; summary: string }[] = [
  { kind: 'identify', summary: 'Segment-compatible identify: a person and their traits' },
  { kind: 'track', summary: 'Segment-compatible track: an event a person did' },
  { kind: 'page', summary: 'Segment-compatible page: a page view' },
  { kind: 'screen', summary: "Segment-compatible screen: an app's screen view (stored as a page view)" },
  { kind: 'group', summary: 'Segment-compatible group: a person joined a group (stored as a "Group" event)' },
  { kind: 'alias', summary: "Segment-compatible alias: previousId's person becomes userId's" },
  { kind: 'batch', summary: 'Segment-compatible batch: up to 500 KB of the calls above' },
];

/**
 * The Segment-compatible Tracking API (issue 54; docs/people.md): the paths of Segment's HTTP Tracking
 * API and RudderStack's data plane. The write key is the Basic auth user name or `writeKey` in the body; the body is
 * read whatever its content type (the browser library sends text/plain) and gzip-compressed or not.
 */
const trackingRoute = (url: string, kind: 'batch' | TrackingMessageType, summary: string) =>
  route({
    method: 'POST',
    url,
    auth: 'public',
    csrf: false,
    cors: true,
    rawBody: true,
    // Over 500 KB is the API's own 400; the server reads up to 1 MB to say so.
    bodyLimit: 1024 * 1024,
    summary,
    response: TrackingApiResult,
    handler: ({ services, session, request }) => receive(services, session, request, kind),
  });

export const trackingApiRoutes: RouteDef[] = [
  ...calls.flatMap(({ kind, summary }) => [
    trackingRoute(`/v1/${kind}`, kind, summary),
    trackingRoute(`/v1/${kind[0]}`, kind, `${summary} (the browser library's short path)`),
  ]),
  // Segment's path for historical data: a batch whose timestamps may lie far in the past (Herald keeps any time).
  trackingRoute('/v1/import', 'batch', 'Segment-compatible import: a batch of past calls (as /v1/batch)'),
  // RudderStack's JavaScript SDK sends with navigator.sendBeacon as the page unloads: a text/plain batch, the write
  // key in the query string (`?writeKey=`), since a beacon cannot set headers.
  trackingRoute(
    '/beacon/v1/batch',
    'batch',
    "RudderStack's beacon path: a batch sent as the page unloads, the write key in the query string",
  ),
];
