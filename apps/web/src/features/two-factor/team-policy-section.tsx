import { twoFactorMessages } from '@herald/contracts';
import { Alert, Switch, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { Section } from '../account/account-section.tsx';
import { useSetTwoFactorPolicy, useTwoFactorStatus } from './two-factor.api.ts';

/** The account page's sign-in policy: require two-factor of every team member. */
export function TeamPolicySection({ canWrite }: { canWrite: boolean }) {
  const status = useTwoFactorStatus();
  const setPolicy = useSetTwoFactorPolicy();

  return (
    <Section
      title="Team sign-in"
      description="Members without two-factor sign-in are taken to set it up at their next sign-in."
    >
      {status.isPending ? (
        <LoadingSpinner label="Loading the sign-in policy" />
      ) : status.isError ? (
        <LoadError
          message={errorMessage(status.error, twoFactorMessages.couldNotLoad)}
          onRetry={() => void status.refetch()}
        />
      ) : (
        <>
          <Switch
            label="Require two-factor sign-in for all team members"
            checked={status.data.requiredByAccount}
            disabled={!canWrite || setPolicy.isPending}
            onChange={(event) =>
              setPolicy.mutate(
                { required: event.currentTarget.checked },
                {
                  onSuccess: () => notifySuccess(twoFactorMessages.policySaved),
                  onError: (error) => notifyError(error, twoFactorMessages.policyFailed),
                },
              )
            }
          />
          {!status.data.enabled && canWrite && (
            <Alert variant="light" color="gray" icon={<IconInfoCircle size={18} />}>
              <Text size="sm">Turn on two-factor sign-in on your profile first.</Text>
            </Alert>
          )}
        </>
      )}
    </Section>
  );
}
