import { AreaPage } from '../areas/area-page.tsx';

/** Form Tracking (issue 18). */
export function FormsPage() {
  return <AreaPage title="Form Tracking" description="Capture people from the forms on your site." />;
}
