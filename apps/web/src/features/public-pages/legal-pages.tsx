import { Anchor, Container, List, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { BrandLogo } from '../../ui/brand-logo.tsx';

function LegalLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Container size="sm" py="xl">
      <Stack gap="lg">
        <Anchor component={Link} to="/" underline="never" aria-label="Herald">
          <BrandLogo />
        </Anchor>
        <Paper withBorder radius="lg" p={{ base: 'lg', sm: 'xl' }}>
          <Stack gap="md">
            <Title order={1}>{title}</Title>
            {children}
          </Stack>
        </Paper>
      </Stack>
    </Container>
  );
}

/** /public/privacy: what this open-source software does with data, stated plainly. */
export function PrivacyPage() {
  return (
    <LegalLayout title="Privacy policy">
      <Text>
        Herald is open-source software. Whoever runs this server (the operator) decides how it is hosted and
        is responsible for the data kept on it. This page describes what the software itself does.
      </Text>
      <List spacing="xs">
        <List.Item>
          It stores the account details you enter (name, email, phone, company site, goals) and the people you
          import.
        </List.Item>
        <List.Item>It keeps you signed in with a session cookie; it sets no advertising cookies.</List.Item>
        <List.Item>It sends email only through the mail server the operator configured.</List.Item>
        <List.Item>Errors in your browser may be reported to this server to help fix them.</List.Item>
      </List>
      <Text c="dimmed" size="sm">
        For questions about how your data is handled on this server, contact its operator.
      </Text>
    </LegalLayout>
  );
}

/** /public/terms: the terms of using this installation. */
export function TermsPage() {
  return (
    <LegalLayout title="Terms of service">
      <Text>
        This installation of Herald is provided by its operator. By creating an account you agree to use it
        lawfully and to send email only to people who asked to receive it.
      </Text>
      <List spacing="xs">
        <List.Item>Do not send spam or import contacts without their consent.</List.Item>
        <List.Item>Accounts that send abusive email may be suspended.</List.Item>
        <List.Item>
          The software is provided as is, without warranty, under its open-source licence.
        </List.Item>
      </List>
      <Text c="dimmed" size="sm">
        The operator of this server may publish additional terms.
      </Text>
    </LegalLayout>
  );
}
