import {
  dashboardGrowthDays,
  dashboardRecentBroadcasts,
  gettingStartedOf,
  hasScopes,
  type Account,
  type BroadcastStatus,
  type DashboardBroadcast,
  type DashboardDay,
  type DashboardPeople,
  type DashboardResponse,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { deliveryCountsOf } from '../broadcasts/broadcasts.queries.ts';
import {
  broadcastRollups,
  dashboardAccount,
  newPeoplePerDay,
  peopleTotals,
  recentSentBroadcasts,
  todayIn,
  type PeopleTotals,
} from './dashboard.queries.ts';

/** 'YYYY-MM-DD' of the day `offset` days after `date` (calendar arithmetic, no time zone involved). */
function addDays(date: string, offset: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + offset);
  return day.toISOString().slice(0, 10);
}

/** The people card: totals, and arrivals per day over 30 days compared with the 30 before. */
async function peopleCard(
  db: Database,
  accountId: number,
  timeZone: string,
  totals: PeopleTotals,
): Promise<DashboardPeople> {
  const [perDay, today] = await Promise.all([
    newPeoplePerDay(db, accountId, timeZone, dashboardGrowthDays * 2),
    todayIn(db, timeZone),
  ]);
  const daysBack = (from: number, count: number): DashboardDay[] =>
    Array.from({ length: count }, (_, index) => {
      const date = addDays(today, -(from + count - 1 - index));
      return { date, count: perDay.get(date) ?? 0 };
    });
  const daily = daysBack(0, dashboardGrowthDays);
  const sum = (days: DashboardDay[]) => days.reduce((total, day) => total + day.count, 0);
  return {
    total: totals.total,
    active: totals.total - totals.unsubscribed,
    unsubscribed: totals.unsubscribed,
    newLast30: sum(daily),
    newPrevious30: sum(daysBack(dashboardGrowthDays, dashboardGrowthDays)),
    daily,
  };
}

const rate = (count: number, sent: number) => (sent > 0 ? Math.min(count / sent, 1) : 0);

/**
 * The recent-broadcasts card. A broadcast still going out (sending, A/B testing, sending the winner) takes `sent`
 * live from its delivery rows, as the broadcast's status call counts it; a finished one takes it from the rollups,
 * where it no longer changes, so a list of big sends is not counted row by row on each visit. Opens and clicks come
 * from the rollups for all.
 */
async function broadcastsCard(db: Database, accountId: number): Promise<DashboardBroadcast[]> {
  const rows = await recentSentBroadcasts(db, accountId, dashboardRecentBroadcasts);
  const ids = rows.map((row) => Number(row.id));
  const goingOut = rows.filter((row) => row.status !== 'sent').map((row) => Number(row.id));
  const [live, rollups] = await Promise.all([
    deliveryCountsOf(db, accountId, goingOut),
    broadcastRollups(db, accountId, ids),
  ]);
  return rows.map((row) => {
    const id = Number(row.id);
    const figures = rollups.get(id) ?? { sent: 0, opens: 0, clicks: 0 };
    const sent = row.status === 'sent' ? figures.sent : (live.get(id)?.sent ?? 0);
    return {
      id,
      name: row.name,
      status: row.status as BroadcastStatus,
      startedAt: row.startedAt ? row.startedAt.toISOString() : null,
      sent,
      opens: figures.opens,
      clicks: figures.clicks,
      openRate: rate(figures.opens, sent),
      clickRate: rate(figures.clicks, sent),
    };
  });
}

/**
 * GET /v1/dashboard: the account's key numbers. Each card needs the scope of what it shows (people:read,
 * broadcasts:read); a member without it gets null for that card, not a 403, so the page still opens.
 */
export async function getDashboard(db: Database, session: Session): Promise<DashboardResponse> {
  const account = await dashboardAccount(db, session.accountId);
  if (!account) throw unauthorized();
  const member = { isOwner: session.isOwner, scopes: session.scopes };
  const totals = await peopleTotals(db, session.accountId);
  const onboarding = account.onboarding as Account['onboarding'];
  return {
    timezone: account.timezone,
    people: hasScopes(member, ['people:read'])
      ? await peopleCard(db, session.accountId, account.timezone, totals)
      : null,
    broadcasts: hasScopes(member, ['broadcasts:read'])
      ? { recent: await broadcastsCard(db, session.accountId) }
      : null,
    gettingStarted: gettingStartedOf({ onboarding, peopleCount: totals.total }),
  };
}
