import { Anchor, Container, Stack } from '@mantine/core';
import { Link } from 'react-router';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { EmptyState } from '../../ui/empty-state.tsx';

/** Public pages of areas this version does not include (subscription preferences, marketplace sign-up). */
export function PublicAreaPage({ title }: { title: string }) {
  return (
    <Container size="sm" py="xl">
      <Stack gap="lg">
        <Anchor component={Link} to="/" underline="never" aria-label="Herald">
          <BrandLogo />
        </Anchor>
        <EmptyState title={title} description="This page isn't available in this version yet." />
      </Stack>
    </Container>
  );
}
