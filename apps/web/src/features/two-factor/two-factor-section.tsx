import { twoFactorMessages } from '@herald/contracts';
import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { IconShieldLock } from '@tabler/icons-react';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { DisableTwoFactorModal, NewRecoveryCodesModal } from './disable-modal.tsx';
import { RecoveryCodesPanel } from './recovery-codes.tsx';
import { SetupPanel } from './setup-panel.tsx';
import { useConfirmProfileSetup, useProfileSetup, useTwoFactorStatus } from './two-factor.api.ts';

function SectionCard({ children }: { children: React.ReactNode }) {
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group gap="xs">
          <IconShieldLock size={20} aria-hidden />
          <Title order={2} fz="lg">
            Two-factor sign-in
          </Title>
        </Group>
        {children}
      </Stack>
    </Card>
  );
}

/** The profile's two-factor card: set up (QR code, first code, recovery codes), status, turning off. */
export function TwoFactorSection() {
  const status = useTwoFactorStatus();
  const setup = useProfileSetup();
  const confirm = useConfirmProfileSetup();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [isDisabling, setIsDisabling] = useState(false);
  const [isRegenerating, setIsRegenerating] = useState(false);

  if (status.isPending)
    return <SectionCard>{<LoadingSpinner label="Loading two-factor sign-in" />}</SectionCard>;
  if (status.isError)
    return (
      <SectionCard>
        <LoadError
          message={errorMessage(status.error, twoFactorMessages.couldNotLoad)}
          onRetry={() => void status.refetch()}
        />
      </SectionCard>
    );

  const data = status.data;
  if (recoveryCodes) {
    return (
      <SectionCard>
        <RecoveryCodesPanel codes={recoveryCodes}>
          <Button w="fit-content" onClick={() => setRecoveryCodes(null)}>
            I saved my codes
          </Button>
        </RecoveryCodesPanel>
      </SectionCard>
    );
  }

  if (!data.enabled) {
    return (
      <SectionCard>
        <Text size="sm" c="dimmed">
          Off. With two-factor sign-in, signing in takes your password and a code from an authenticator app on
          your phone, so a stolen password alone is not enough.
          {data.requiredByAccount &&
            ' This account requires it of every team member from their next sign-in.'}
        </Text>
        {setup.data && !setup.isPending ? (
          <>
            <SetupPanel
              setup={setup.data}
              isPending={confirm.isPending}
              error={confirm.isError ? errorMessage(confirm.error, twoFactorMessages.wrongCode) : null}
              onSubmitCode={(code) =>
                confirm.mutate(code, {
                  onSuccess: (result) => {
                    setRecoveryCodes(result.recoveryCodes);
                    setup.reset();
                    confirm.reset();
                    notifySuccess(twoFactorMessages.enabled);
                  },
                })
              }
            />
            <Button variant="default" w="fit-content" onClick={() => setup.reset()}>
              Cancel
            </Button>
          </>
        ) : (
          <Button
            w="fit-content"
            loading={setup.isPending}
            onClick={() =>
              setup.mutate(undefined, {
                onError: (error) => notifyError(error, twoFactorMessages.setupFailed),
              })
            }
          >
            Set up two-factor sign-in
          </Button>
        )}
      </SectionCard>
    );
  }

  return (
    <SectionCard>
      <Group gap="xs">
        <Badge color="teal" variant="light">
          On
        </Badge>
        {data.enabledAt && (
          <Text size="sm" c="dimmed">
            since {formatDate(data.enabledAt)}
          </Text>
        )}
      </Group>
      <Text size="sm">
        Signing in asks for a code from your authenticator app. Recovery codes left:{' '}
        <b>{data.recoveryCodesLeft}</b> of 10.
      </Text>
      {data.requiredByAccount && (
        <Text size="sm" c="dimmed">
          This account requires two-factor sign-in of every team member, so it stays on.
        </Text>
      )}
      <Group gap="sm">
        <Button variant="default" onClick={() => setIsRegenerating(true)}>
          New recovery codes
        </Button>
        {!data.requiredByAccount && (
          <Button variant="default" color="red" onClick={() => setIsDisabling(true)}>
            Turn off two-factor sign-in
          </Button>
        )}
      </Group>
      <DisableTwoFactorModal opened={isDisabling} onClose={() => setIsDisabling(false)} />
      <NewRecoveryCodesModal
        opened={isRegenerating}
        onClose={() => setIsRegenerating(false)}
        onCodes={(codes) => {
          setRecoveryCodes(codes);
          notifySuccess(twoFactorMessages.newRecoveryCodes);
        }}
      />
    </SectionCard>
  );
}
