import { sendingMessages } from '@herald/contracts';
import { Anchor, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { LinkProblem, PreviewNote, PublicCard } from './public-card.tsx';
import { preferencesPath, useUnsubscribe } from './preferences.api.ts';

/**
 * /public/unsubscribe?token=…: the unsubscribe link of an email. Opening it unsubscribes (one POST, made once
 * even when React mounts twice), then confirms and offers the preference centre under the same token.
 */
export function UnsubscribePage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const isPreview = searchParams.get('preview') === '1';
  const unsubscribe = useUnsubscribe();
  const postedFor = useRef<string | null>(null);
  const { mutate } = unsubscribe;

  useEffect(() => {
    if (isPreview || !token || postedFor.current === token) return;
    postedFor.current = token;
    mutate(token);
  }, [isPreview, token, mutate]);

  let body;
  if (isPreview)
    body = (
      <PreviewNote>
        A recipient who follows this link is unsubscribed from all marketing emails at once and sees a
        confirmation here, with a link to their preferences in case they change their mind.
      </PreviewNote>
    );
  else if (!token) body = <LinkProblem message={sendingMessages.linkInvalid} />;
  else if (unsubscribe.isError)
    body = <LinkProblem message={errorMessage(unsubscribe.error, sendingMessages.unsubscribeError)} />;
  else if (!unsubscribe.data) body = <Skeleton h={96} role="status" aria-label="Unsubscribing you" />;
  else
    body = (
      <Stack gap="md" role="status">
        <Stack gap="sm" align="center" ta="center">
          <ThemeIcon size={56} radius="xl" color="teal" variant="light" aria-hidden>
            <IconCircleCheck size={32} />
          </ThemeIcon>
          <Text fw={600}>{unsubscribe.data.accountName}</Text>
          <Text>{unsubscribe.data.message}</Text>
        </Stack>
        <Text size="sm" ta="center">
          Changed your mind?{' '}
          <Anchor component={Link} to={preferencesPath(token)}>
            Manage your preferences
          </Anchor>
        </Text>
      </Stack>
    );

  return (
    <PublicCard>
      <Stack gap="lg">
        <Title order={1} fz={{ base: 22, sm: 26 }} ta={unsubscribe.data ? 'center' : undefined}>
          Unsubscribe
        </Title>
        {body}
      </Stack>
    </PublicCard>
  );
}
