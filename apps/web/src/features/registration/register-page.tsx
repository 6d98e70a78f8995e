import {
  defaultAfterRegister,
  messages,
  registrationSteps,
  type Account,
  type RegistrationStep,
} from '@herald/contracts';
import { Button, Center, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { registrationStepOf, useAccount, useSession } from '../account/account.api.ts';
import { CompanyStep } from './company-step.tsx';
import { EmailStep } from './email-step.tsx';
import { FormError } from './form-error.tsx';
import { GoalsStep } from './goals-step.tsx';
import { NameStep } from './name-step.tsx';
import { PasswordStep } from './password-step.tsx';
import { PhoneStep } from './phone-step.tsx';
import { RegistrationLayout } from './registration-layout.tsx';

function isRegistrationStep(value: string | undefined): value is RegistrationStep {
  return (registrationSteps as readonly (string | undefined)[]).includes(value);
}

function Loading({ step }: { step: RegistrationStep | null }) {
  return (
    <RegistrationLayout step={step}>
      <Center py={80}>
        <LoadingSpinner label="Loading your account" size="lg" />
      </Center>
    </RegistrationLayout>
  );
}

/** /register and /register/:stepId: the linear wizard driven by what the account still lacks. */
export function RegisterPage() {
  const { stepId } = useParams();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const session = useSession();
  const isLoggedIn = session.data?.isLoggedIn === true;
  const account = useAccount({ enabled: isLoggedIn });

  const requestedStep = isRegistrationStep(stepId) ? stepId : null;
  const afterRegister = safeRedirectPath(searchParams.get('after-register'), defaultAfterRegister);
  // The query string (after-register and anything else) travels with every step redirect.
  const stepPath = (step: RegistrationStep) => `/register/${step}${location.search}`;

  const goToNext = (updated: Account) => {
    const next = registrationStepOf(updated);
    navigate(next ? stepPath(next) : afterRegister, { replace: !next });
  };

  if (session.isPending) return <Loading step={requestedStep} />;
  if (session.isError)
    return (
      <Failure
        step={requestedStep}
        message={messages.connectionIssues}
        onRetry={() => void session.refetch()}
      />
    );

  if (!isLoggedIn) {
    if (requestedStep !== 'email') return <Navigate to={stepPath('email')} replace />;
    return (
      <RegistrationLayout step="email">
        <EmailStep onDone={() => undefined} />
      </RegistrationLayout>
    );
  }

  if (account.isPending) return <Loading step={requestedStep} />;
  if (account.isError)
    return (
      <Failure
        step={requestedStep}
        message={errorMessage(account.error, messages.couldNotRetrieveAccount)}
        onRetry={() => void account.refetch()}
      />
    );

  const next = registrationStepOf(account.data);
  if (!next) return <Navigate to={afterRegister} replace />;

  // Earlier steps stay open for corrections; later ones (and the email step, once done) go to the next missing item.
  const isReachable =
    requestedStep !== null &&
    requestedStep !== 'email' &&
    registrationSteps.indexOf(requestedStep) <= registrationSteps.indexOf(next);
  if (!isReachable) return <Navigate to={stepPath(next)} replace />;

  const steps: Record<Exclude<RegistrationStep, 'email'>, ReactNode> = {
    name: <NameStep account={account.data} onDone={goToNext} />,
    phone: <PhoneStep account={account.data} onDone={goToNext} />,
    company: <CompanyStep account={account.data} onDone={goToNext} />,
    goals: <GoalsStep account={account.data} onDone={goToNext} />,
    password: <PasswordStep onDone={goToNext} />,
  };
  return (
    <RegistrationLayout step={requestedStep}>
      <div key={requestedStep}>{steps[requestedStep as Exclude<RegistrationStep, 'email'>]}</div>
    </RegistrationLayout>
  );
}

function Failure({
  step,
  message,
  onRetry,
}: {
  step: RegistrationStep | null;
  message: string;
  onRetry: () => void;
}) {
  return (
    <RegistrationLayout step={step}>
      <Stack gap="md">
        <FormError>{message}</FormError>
        <Text c="dimmed" size="sm">
          Your progress is saved. Try again in a moment.
        </Text>
        <Button onClick={onRetry} w="fit-content">
          Try again
        </Button>
      </Stack>
    </RegistrationLayout>
  );
}
