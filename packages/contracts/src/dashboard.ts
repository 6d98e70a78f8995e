import { z } from 'zod';
import { broadcastStatuses } from './broadcasts.ts';

/**
 * Contracts of issue 18: the dashboard (GET /v1/dashboard) and the getting-started state of the top bar and the
 * Quick Start (docs/web-app.md; the rule itself is in getting-started.ts). Each card of the dashboard is null when the
 * team member lacks the scope its numbers need (people:read, broadcasts:read): the page hides the card instead of
 * failing.
 */

/** Days in the growth chart, and in the period it is compared with. */
export const dashboardGrowthDays = 30;
/** Broadcasts listed under "Recent broadcasts". */
export const dashboardRecentBroadcasts = 5;

/** New people on one day of the account's time zone ('YYYY-MM-DD'). */
export const DashboardDay = z.object({ date: z.string(), count: z.number().int() });
export type DashboardDay = z.infer<typeof DashboardDay>;

export const DashboardPeople = z.object({
  /** People not archived (the same count as the account's peopleCount). */
  total: z.number().int(),
  /** Of those, people who have not unsubscribed. */
  active: z.number().int(),
  unsubscribed: z.number().int(),
  /** People added in the last 30 days (today included), and in the 30 days before them. */
  newLast30: z.number().int(),
  newPrevious30: z.number().int(),
  /** New people per day over the last 30 days, oldest first, every day present. */
  daily: z.array(DashboardDay),
});
export type DashboardPeople = z.infer<typeof DashboardPeople>;

export const DashboardBroadcast = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(broadcastStatuses),
  startedAt: z.string().nullable(),
  /** Messages sent, and people who opened and clicked (each person once). */
  sent: z.number().int(),
  opens: z.number().int(),
  clicks: z.number().int(),
  /** opens / sent and clicks / sent, 0 to 1 (0 when nothing was sent). */
  openRate: z.number(),
  clickRate: z.number(),
});
export type DashboardBroadcast = z.infer<typeof DashboardBroadcast>;

/** Where the getting-started progress stands: the top bar's percent and next step, and each stage's state. */
export const GettingStarted = z.object({
  /** 20, 40, 60 or 80 while steps remain; 100 once every step is done (the top bar then hides it). */
  percent: z.number().int(),
  next: z.object({ label: z.string(), to: z.string() }).nullable(),
  done: z.object({ import: z.boolean(), apps: z.boolean(), flow: z.boolean(), help: z.boolean() }),
});
export type GettingStarted = z.infer<typeof GettingStarted>;

export const DashboardResponse = z.object({
  /** The account's time zone, in which the days of the growth chart run. */
  timezone: z.string(),
  people: DashboardPeople.nullable(),
  /** The last broadcasts that went out or are going out, newest first; null without broadcasts:read. */
  broadcasts: z.object({ recent: z.array(DashboardBroadcast) }).nullable(),
  gettingStarted: GettingStarted,
});
export type DashboardResponse = z.infer<typeof DashboardResponse>;
