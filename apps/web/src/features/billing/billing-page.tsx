import { AreaPage } from '../areas/area-page.tsx';

/** /billing and /settings/billing (issue 21). */
export function BillingPage() {
  return <AreaPage title="Plan and Billing" description="Choose a plan and manage payment. Plans are priced by the number of people." />;
}
