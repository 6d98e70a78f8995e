import { hasScopes, type BillingAnswer, type CheckoutProvider } from '@herald/contracts';
import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  SegmentedControl,
  Select,
  Stack,
  Text,
} from '@mantine/core';
import { IconCreditCard, IconInfoCircle, IconLock } from '@tabler/icons-react';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useAccount } from '../account/account.api.ts';
import { useBilling, useCheckout, usePlanChoices } from './billing.api.ts';
import {
  billedText,
  checkoutBody,
  chosenPlan,
  chosenProvider,
  configuredProviders,
  planValue,
  type PlanGroups,
} from './plan-choice.ts';

export const upgradeDialogTitle = 'Upgrade your plan';
const providerNames: Record<CheckoutProvider, string> = { chargebee: 'Card', paypal: 'PayPal' };

/** No payment provider on this server: say how a plan is given instead, and confirm nothing. */
function HowToPay({
  billing,
  accountId,
  choice,
}: {
  billing: BillingAnswer;
  accountId: number;
  choice: string | null;
}) {
  const [name, limit] = (choice ?? '<plan>:<people>').split(':');
  const subject = encodeURIComponent('Plan change');
  const body = encodeURIComponent(`Please move account ${accountId} to ${name} up to ${limit} people.`);
  return (
    <Alert
      variant="light"
      color="blue"
      icon={<IconInfoCircle size={18} />}
      title="Online payment is not set up on this server"
    >
      <Stack gap="xs">
        <Text size="sm">
          {billing.supportEmail ? (
            <>
              To move to this plan, email{' '}
              <Anchor
                href={`mailto:${billing.supportEmail}?subject=${subject}&body=${body}`}
                style={{ overflowWrap: 'anywhere' }}
              >
                {billing.supportEmail}
              </Anchor>{' '}
              with the plan you chose. We set it up for you once it is paid.
            </>
          ) : (
            'To move to this plan, ask the people who run this server to assign it to your account.'
          )}
        </Text>
        <Text size="sm" c="dimmed">
          The server&apos;s operator assigns it with:
        </Text>
        <Code
          block
          style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
        >{`npm run cli -- plan ${accountId} ${name} ${limit}`}</Code>
      </Stack>
    </Alert>
  );
}

function PlanPicker({
  groups,
  value,
  onChange,
}: {
  groups: PlanGroups;
  value: string | null;
  onChange: (v: string | null) => void;
}) {
  const data = groups.map((group) => ({
    group: group.label,
    items: group.plans.map((plan) => ({ value: planValue(plan), label: plan.label })),
  }));
  const billed = billedText(groups, value);
  return (
    <Stack gap={6}>
      <Select
        label="Plan"
        description="Priced by the number of people in your account."
        data={data}
        value={value}
        onChange={onChange}
        allowDeselect={false}
        maxDropdownHeight={320}
        // The open list scrolls past 320 px and its options take no focus (the input keeps it): the scrolling area
        // itself can be focused, so a keyboard can scroll it (axe: scrollable-region-focusable).
        scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}
        comboboxProps={{ withinPortal: true }}
      />
      {billed && (
        <Text size="sm" c="dimmed">
          {billed}
        </Text>
      )}
    </Stack>
  );
}

interface FormProps {
  billing: BillingAnswer;
  groups: PlanGroups;
  accountId: number;
  confirmLabel: string;
  onCancel: () => void;
}

/** The picker, the way to pay, Cancel and confirm; confirm sends the browser to the provider's page. */
function PlanForm({ billing, groups, accountId, confirmLabel, onCancel }: FormProps) {
  const checkout = useCheckout();
  const [picked, setPicked] = useState<string | null>(null);
  const [pickedProvider, setPickedProvider] = useState<CheckoutProvider | null>(null);
  const choice = chosenPlan(groups, picked);
  const providers = configuredProviders(billing);
  const provider = chosenProvider(providers, pickedProvider);
  const canConfirm = billing.canChangePlan && provider !== null && choice !== null;

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (!canConfirm || !provider) return;
        checkout.mutate(checkoutBody(choice, provider), {
          onSuccess: (answer) => window.location.assign(answer.url),
        });
      }}
    >
      <Stack gap="md">
        <PlanPicker groups={groups} value={choice} onChange={setPicked} />
        {providers.length > 1 && (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="pay-by-label">
              Pay by
            </Text>
            <SegmentedControl
              aria-labelledby="pay-by-label"
              value={provider ?? undefined}
              onChange={(v) => setPickedProvider(v as CheckoutProvider)}
              data={providers.map((p) => ({ value: p, label: providerNames[p] }))}
            />
          </Stack>
        )}
        {providers.length === 1 && provider && (
          <Text size="sm" c="dimmed">
            You pay by {provider === 'chargebee' ? 'card' : 'PayPal'} on the next page.
          </Text>
        )}
        {providers.length === 0 && <HowToPay billing={billing} accountId={accountId} choice={choice} />}
        {!billing.canChangePlan && (
          <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
            Changing the plan needs the “Change plan and billing” permission. Ask an owner of the account.
          </Alert>
        )}
        {checkout.isError && (
          <Alert variant="light" color="red" role="alert" title="We couldn't start the payment">
            {errorMessage(checkout.error, 'Please try again.')}
          </Alert>
        )}
      </Stack>
      <Group justify="flex-end" mt="lg" gap="sm">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        {providers.length > 0 && (
          <Button
            type="submit"
            leftSection={<IconCreditCard size={16} />}
            disabled={!canConfirm}
            loading={checkout.isPending}
          >
            {confirmLabel}
          </Button>
        )}
      </Group>
    </form>
  );
}

function CancelOnly({ onCancel }: { onCancel: () => void }) {
  return (
    <Group justify="flex-end" mt="lg">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
    </Group>
  );
}

interface Props {
  opened: boolean;
  onClose: () => void;
  /** Label of the confirm button (docs/billing.md: 'Upgrade to this plan' unless said otherwise). */
  confirmLabel?: string;
}

/** The 'Upgrade plan' dialog (docs/billing.md): plans grouped Monthly Growth, Monthly Premium and the annual two. */
export function UpgradePlanDialog({ opened, onClose, confirmLabel = 'Upgrade to this plan' }: Props) {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['billing:read']) : false;
  const billing = useBilling({ enabled: opened && canRead });
  const choices = usePlanChoices({ enabled: opened && canRead });

  let content;
  if (!canRead) {
    content = (
      <>
        <Alert variant="light" color="gray" icon={<IconLock size={18} />} title="You can't see the plans">
          Choosing a plan needs the “See plan and billing” and “Change plan and billing” permissions. Ask an
          owner of the account to change the plan or to give you these permissions.
        </Alert>
        <CancelOnly onCancel={onClose} />
      </>
    );
  } else {
    const plans = {
      isPending: billing.isPending || choices.isPending,
      isError: billing.isError || choices.isError,
      error: billing.error ?? choices.error,
      refetch: () => {
        void billing.refetch();
        void choices.refetch();
      },
    };
    const hasPlans = (choices.data?.groups.length ?? 0) > 0;
    content = (
      <>
        <ListBody
          query={plans}
          loadingLabel="Loading plans"
          skeletonHeights={[36, 36, 120]}
          errorFallback="We couldn't load the plans."
          isEmpty={!hasPlans}
          empty={
            <Text size="sm">
              Your account is on the largest plan there is. For more people, contact us and we will find a
              plan that fits.
            </Text>
          }
        >
          {() =>
            billing.data &&
            choices.data && (
              <PlanForm
                billing={billing.data}
                groups={choices.data.groups}
                accountId={account.data?.accountId ?? 0}
                confirmLabel={confirmLabel}
                onCancel={onClose}
              />
            )
          }
        </ListBody>
        {!plans.isPending && (plans.isError || !hasPlans) && <CancelOnly onCancel={onClose} />}
      </>
    );
  }

  return (
    <Modal opened={opened} onClose={onClose} title={upgradeDialogTitle} size="lg" centered>
      {content}
    </Modal>
  );
}
