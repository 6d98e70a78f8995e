import { registrationSteps, type RegistrationStep } from '@herald/contracts';
import { Box, Grid, Progress, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { TestimonialPanel } from './testimonials.tsx';

interface RegistrationLayoutProps {
  step: RegistrationStep | null;
  children: ReactNode;
}

/** Form on the left, rotating testimonial on the right (hidden on narrow screens). */
export function RegistrationLayout({ step, children }: RegistrationLayoutProps) {
  const stepIndex = step ? registrationSteps.indexOf(step) : 0;
  return (
    <Grid gutter={0} mih="100vh" bg="white" styles={{ inner: { minHeight: '100vh' } }}>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack mih="100vh" px={{ base: 'md', sm: 48 }} py="xl" gap={0}>
          <BrandLogo size={32} />
          <Stack justify="center" flex={1} py="xl">
            <Box w="100%" maw={460} mx="auto">
              {step && (
                <Stack gap={6} mb="xl">
                  <Text size="xs" c="dimmed" fw={600} tt="uppercase" style={{ letterSpacing: '0.06em' }}>
                    Step {stepIndex + 1} of {registrationSteps.length}
                  </Text>
                  <Progress
                    value={((stepIndex + 1) / registrationSteps.length) * 100}
                    size="sm"
                    radius="xl"
                    aria-label="Registration progress"
                  />
                </Stack>
              )}
              {children}
            </Box>
          </Stack>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }} visibleFrom="md">
        <Box h="100%" mih="100vh">
          <TestimonialPanel startAt={stepIndex} />
        </Box>
      </Grid.Col>
    </Grid>
  );
}

/** Heading and optional sentence at the top of a step. */
export function StepHeading({ title, description }: { title: string; description?: ReactNode }) {
  return (
    <Stack gap={6} mb="lg">
      <Title order={1} fz={{ base: 26, sm: 30 }} lh={1.2}>
        {title}
      </Title>
      {description && <Text c="dimmed">{description}</Text>}
    </Stack>
  );
}
