import { broadcast100k } from './workloads/broadcast-100k.ts';
import { broadcastKill } from './workloads/broadcast-kill.ts';
import { benchData } from './workloads/bench-data.ts';
import { bulkTag } from './workloads/bulk-tag.ts';
import { eventIngest } from './workloads/event-ingest.ts';
import { eventsStore10m } from './workloads/events-store.ts';
import { eventsStore100m } from './workloads/events-store-100m.ts';
import { eventsIngestCh } from './workloads/events-ingest-ch.ts';
import { flow100k } from './workloads/flow-100k.ts';
import { flowKill } from './workloads/flow-kill.ts';
import { flowTimerLag } from './workloads/flow-timer-lag.ts';
import { describePace, hostPace } from './workloads/host-pace.ts';
import { importFloor } from './workloads/import-floor.ts';
import { metrics10m } from './workloads/metrics-10m.ts';
import { import1m } from './workloads/import-1m.ts';
import { peopleSearch } from './workloads/people-search.ts';
import { render10k } from './workloads/render-10k.ts';
import { rollupLag } from './workloads/rollup-lag.ts';
import { segmentCount, segmentFreshness, segmentPeople, segmentRefresh } from './workloads/segments.ts';
import { sessionCheck } from './workloads/session-check.ts';
import { trackingHits } from './workloads/tracking-hits.ts';
import { trackingSoak } from './workloads/tracking-soak.ts';
import { webWeight } from './workloads/web-weight.ts';

/**
 * What a workload found: its figure, and, for a workload that measures one, its floor: the same figure for the
 * cheapest way to do the same work, measured in the same run (this machine's speed moves 2× from hour to hour).
 */
interface Result {
  figure: number;
  unit: string;
  floor?: number;
}

/**
 * `npm run bench -- <workload>`: runs one workload on DATABASE_URL or the embedded database, prints progress, and
 * ends with one line `<workload>: <figure> <unit>`, followed by `(<figure ÷ floor>× floor)` where it has a floor.
 */
const workloads: Record<string, () => Promise<Result>> = {
  'session-check': sessionCheck,
  'bench-data': benchData,
  'people-search': peopleSearch,
  'bulk-tag': bulkTag,
  'event-ingest': eventIngest,
  'import-1m': import1m,
  'import-floor': importFloor,
  'segment-count': segmentCount,
  'segment-people': segmentPeople,
  'segment-freshness': segmentFreshness,
  'segment-refresh': segmentRefresh,
  'render-10k': render10k,
  'web-weight': webWeight,
  'broadcast-100k': broadcast100k,
  'broadcast-kill': broadcastKill,
  'tracking-hits': trackingHits,
  'tracking-soak': trackingSoak,
  'metrics-10m': metrics10m,
  'rollup-lag': rollupLag,
  'flow-100k': flow100k,
  'flow-kill': flowKill,
  'flow-timer-lag': flowTimerLag,
  'events-store-10m': eventsStore10m,
  'events-store-100m': eventsStore100m,
  'events-ingest-ch': eventsIngestCh,
};

const name = process.argv[2];
if (!name || !workloads[name]) {
  console.error(`Usage: npm run bench -- <workload>\nWorkloads: ${Object.keys(workloads).join(', ')}`);
  process.exit(2);
}
// The host's pace before and after: the same code measures differently as a shared host speeds up or slows down.
console.log(describePace('before', await hostPace()));
const result = await workloads[name]();
console.log(describePace('after', await hostPace()));
const ratio = result.floor ? ` (${(result.figure / result.floor).toFixed(2)}× floor)` : '';
console.log(`${name}: ${result.figure} ${result.unit}${ratio}`);
process.exit(0);
