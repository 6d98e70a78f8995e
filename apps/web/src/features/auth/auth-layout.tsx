import { Anchor, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { BrandLogo } from '../../ui/brand-logo.tsx';

interface AuthLayoutProps {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}

/** Centred card used by sign-in and password-reset pages. */
export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Stack w="100%" maw={420} gap="lg">
        <Center>
          <Anchor component={Link} to="/login" underline="never" aria-label="Herald">
            <BrandLogo size={36} />
          </Anchor>
        </Center>
        <Paper withBorder shadow="sm" radius="lg" p={{ base: 'lg', sm: 'xl' }}>
          <Stack gap="lg">
            <Stack gap={4}>
              <Title order={2} fz={26}>
                {title}
              </Title>
              {subtitle && (
                <Text c="dimmed" size="sm">
                  {subtitle}
                </Text>
              )}
            </Stack>
            {children}
          </Stack>
        </Paper>
        {footer && (
          <Text ta="center" size="sm" c="dimmed">
            {footer}
          </Text>
        )}
      </Stack>
    </Center>
  );
}
