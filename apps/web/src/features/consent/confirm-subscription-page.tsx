import { consentMessages } from '@herald/contracts';
import { Alert, Button, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconMailForward } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { LinkProblem, PublicCard } from '../preferences/public-card.tsx';
import { useConfirmSubscription, useResendConfirmation } from './consent.api.ts';

/**
 * /public/confirm-subscription?token=…: the link of a double opt-in confirmation email. Loading the page confirms
 * nothing; its script POSTs the token once (a link scanner that only GETs the page confirms nobody). An expired link
 * offers a new email.
 */
export function ConfirmSubscriptionPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const confirm = useConfirmSubscription();
  const resend = useResendConfirmation();
  const postedFor = useRef<string | null>(null);
  const { mutate } = confirm;

  useEffect(() => {
    if (!token || postedFor.current === token) return;
    postedFor.current = token;
    mutate(token);
  }, [token, mutate]);

  const expired = isApiError(confirm.error) && confirm.error.statusCode === 410;
  let body;
  if (!token) body = <LinkProblem message={consentMessages.linkInvalid} />;
  else if (confirm.isError)
    body = (
      <Stack gap="md">
        <LinkProblem message={errorMessage(confirm.error, consentMessages.confirmError)} />
        {expired &&
          (resend.isSuccess ? (
            <Alert variant="light" color="teal" icon={<IconMailForward size={18} />} role="status">
              {resend.data.message}
            </Alert>
          ) : (
            <Stack gap="xs">
              <Button
                w="fit-content"
                leftSection={<IconMailForward size={16} />}
                loading={resend.isPending}
                onClick={() => resend.mutate(token)}
              >
                Send me a new confirmation email
              </Button>
              {resend.isError && (
                <Text size="sm" c="red" role="alert">
                  {errorMessage(resend.error, consentMessages.confirmError)}
                </Text>
              )}
            </Stack>
          ))}
      </Stack>
    );
  else if (!confirm.data) body = <Skeleton h={96} role="status" aria-label="Confirming your subscription" />;
  else
    body = (
      <Stack gap="sm" align="center" ta="center" role="status">
        <ThemeIcon size={56} radius="xl" color="teal" variant="light" aria-hidden>
          <IconCircleCheck size={32} />
        </ThemeIcon>
        {confirm.data.accountName && <Text fw={600}>{confirm.data.accountName}</Text>}
        <Text>{confirm.data.message}</Text>
      </Stack>
    );

  return (
    <PublicCard>
      <Stack gap="lg">
        <Title order={1} fz={{ base: 22, sm: 26 }} ta={confirm.data ? 'center' : undefined}>
          Confirm your subscription
        </Title>
        {body}
      </Stack>
    </PublicCard>
  );
}
