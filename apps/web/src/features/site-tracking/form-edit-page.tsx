import { AreaPage } from '../areas/area-page.tsx';

/** Edit Form (issue 18). */
export function FormEditPage() {
  return <AreaPage title="Edit Form" description="Map a form on your site to person fields." />;
}
