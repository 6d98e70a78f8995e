import { AreaPage } from '../areas/area-page.tsx';

/** Site Tracking (issue 18). */
export function SiteTrackingPage() {
  return <AreaPage title="Site Tracking" description="Track page visits on your site." />;
}
