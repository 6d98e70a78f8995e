/** Contracts of issue 18: tracking. */
import { z } from 'zod';

/** The user agent classes an open or click is recorded with (docs/tracking-and-metrics.md, "Email tracking"). */
export const trackingUserAgentClasses = [
  'privacy-proxy',
  'image-proxy',
  'scanner',
  'mobile',
  'desktop',
  'unknown',
] as const;
export type TrackingUserAgentClass = (typeof trackingUserAgentClasses)[number];

/**
 * The data of an `email` event named `opened` or `clicked`: the source as the `sent` event names it (broadcastId,
 * flowId, or sourceId for transactional and test mail), the email, the A/B variant when above 0, the destination
 * of a click, the user agent class, and whether a machine made the hit. Unique opens and clicks count people with
 * a hit whose `machine` is not true.
 */
export const EmailHitData = z.object({
  broadcastId: z.number().int().optional(),
  flowId: z.number().int().optional(),
  /** A flow's send step, as text (as the sent event and the metrics rollups name it). */
  stepId: z.string().optional(),
  sourceId: z.number().int().optional(),
  emailId: z.number().int(),
  variant: z.number().int().positive().optional(),
  link: z.string().optional(),
  userAgent: z.enum(trackingUserAgentClasses),
  machine: z.boolean(),
});
export type EmailHitData = z.infer<typeof EmailHitData>;
