import { AreaPage } from '../areas/area-page.tsx';

/** Dashboard (issue 18). */
export function DashboardPage() {
  return <AreaPage title="Dashboard" description="An overview of your people, flows and email results." />;
}
