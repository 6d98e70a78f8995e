import { PublicAreaPage } from '../public-pages/public-area-page.tsx';

/** /public/register/appsumo (issue 21). */
export function MarketplaceRegisterPage() {
  return <PublicAreaPage title="Marketplace registration" />;
}
