import { defaultAfterRegister, messages, type RedeemAnswer } from '@herald/contracts';
import { Button, Center, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { registrationStepOf, useAccount, useSession } from '../account/account.api.ts';
import { FormError } from '../registration/form-error.tsx';
import { RegistrationLayout } from '../registration/registration-layout.tsx';
import { MarketplaceAccountForm } from './marketplace-account-form.tsx';
import { MarketplaceVisitorForm } from './marketplace-visitor-form.tsx';

/**
 * /public/register/appsumo: registration for a deal-marketplace audience (docs/billing.md). A visitor redeems the code
 * as the wizard's first step and continues in /register/…; a signed-in member redeems it onto the current account.
 */
export function MarketplaceRegisterPage() {
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const session = useSession();
  const isLoggedIn = session.data?.isLoggedIn === true;
  const account = useAccount({ enabled: isLoggedIn });

  const onRegistered = (answer: RedeemAnswer) => {
    notifications.show({
      color: 'teal',
      message: `✅ Code redeemed: ${answer.plan.humanName}, up to ${answer.plan.peopleUpperLimit.toLocaleString('en-US')} people.`,
    });
    // The wizard takes over (the query string, with any after-register, travels along).
    const next = registrationStepOf(answer.account);
    navigate(
      next
        ? `/register/${next}${location.search}`
        : safeRedirectPath(searchParams.get('after-register'), defaultAfterRegister),
      { replace: true },
    );
  };

  if (session.isPending || (isLoggedIn && account.isPending)) {
    return (
      <RegistrationLayout step={null}>
        <Center py={80}>
          <LoadingSpinner label="Loading" size="lg" />
        </Center>
      </RegistrationLayout>
    );
  }
  if (session.isError || account.isError) {
    const error = session.error ?? account.error;
    return (
      <RegistrationLayout step={null}>
        <Stack gap="md">
          <FormError>
            {session.isError
              ? messages.connectionIssues
              : errorMessage(error, messages.couldNotRetrieveAccount)}
          </FormError>
          <Text c="dimmed" size="sm">
            Your code has not been used. Try again in a moment.
          </Text>
          <Button
            w="fit-content"
            onClick={() => void (session.isError ? session.refetch() : account.refetch())}
          >
            Try again
          </Button>
        </Stack>
      </RegistrationLayout>
    );
  }
  if (isLoggedIn && account.data) {
    return (
      <RegistrationLayout step={null}>
        <MarketplaceAccountForm account={account.data} />
      </RegistrationLayout>
    );
  }
  return (
    <RegistrationLayout step="email">
      <MarketplaceVisitorForm onRegistered={onRegistered} />
    </RegistrationLayout>
  );
}
