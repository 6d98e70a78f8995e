import { AreaPage } from '../areas/area-page.tsx';

/** Metrics (issue 18). */
export function MetricsPage() {
  return <AreaPage title="Metrics" description="Opens, clicks and unsubscribes across your emails." />;
}
