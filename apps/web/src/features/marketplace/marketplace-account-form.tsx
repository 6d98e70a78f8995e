import {
  MarketplaceCode,
  hasScopes,
  marketplaceMessages,
  messages,
  type Account,
  type Plan,
} from '@herald/contracts';
import { Alert, Anchor, Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconCircleCheck, IconLock } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { registrationStepOf } from '../account/account.api.ts';
import { FormError } from '../registration/form-error.tsx';
import { StepHeading } from '../registration/registration-layout.tsx';
import { useLogOutHere, useRedeemCode, useRedemptions } from './marketplace.api.ts';
import { CodeInput } from './code-input.tsx';

const people = (count: number) => count.toLocaleString('en-US');

/** Signed in: the code goes onto the current account (billing:write), with the codes already used listed. */
export function MarketplaceAccountForm({ account }: { account: Account }) {
  const member = account.teamMember.accountData;
  const canRedeem = hasScopes(member, ['billing:write']);
  const canList = hasScopes(member, ['billing:read']);
  const redeem = useRedeemCode();
  const logout = useLogOutHere();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [redeemed, setRedeemed] = useState<Plan | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = MarketplaceCode.safeParse(code);
    setCodeError(
      parsed.success ? null : (parsed.error.issues[0]?.message ?? marketplaceMessages.missingCode),
    );
    if (!parsed.success) return;
    setFormError(null);
    setRedeemed(null);
    redeem.mutate(
      { code: parsed.data },
      {
        onSuccess: (answer) => {
          setRedeemed(answer.plan);
          setCode('');
        },
        onError: (error) => setFormError(errorMessage(error, messages.unknownError)),
      },
    );
  };

  const accountName = account.name ?? account.email;
  const next = registrationStepOf(account);
  return (
    <>
      <StepHeading
        title="Redeem a marketplace code"
        description={
          <>
            You are signed in to <b>{accountName}</b>. The plan of the code goes onto this account.
          </>
        }
      />
      <Stack gap="lg">
        {redeemed && (
          <Alert
            color="teal"
            variant="light"
            icon={<IconCircleCheck size={18} />}
            role="status"
            title="Code redeemed."
          >
            <Stack gap="xs">
              <Text size="sm">
                {accountName} now has the {redeemed.humanName} plan for up to{' '}
                {people(redeemed.peopleUpperLimit)} people.
              </Text>
              <Group gap="sm">
                <Button component={Link} to={next ? `/register/${next}` : '/dashboard'} size="xs">
                  {next ? 'Finish your registration' : 'Go to the dashboard'}
                </Button>
                <Button component={Link} to="/billing" size="xs" variant="light">
                  See Plan and Billing
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}
        {canRedeem ? (
          <form onSubmit={onSubmit} noValidate>
            <Stack gap="md">
              <FormError>{formError}</FormError>
              <CodeInput value={code} onChange={setCode} error={codeError} />
              <Button type="submit" size="md" fullWidth loading={redeem.isPending}>
                Redeem onto this account
              </Button>
            </Stack>
          </form>
        ) : (
          <Alert color="yellow" variant="light" icon={<IconLock size={18} />} title="Ask the account owner">
            {marketplaceMessages.needsBillingWrite}
          </Alert>
        )}
        {canList && <RedemptionsCard />}
        {next && !redeemed && (
          <Text size="sm" ta="center">
            Your registration is not finished yet.{' '}
            <Anchor component={Link} to={`/register/${next}`} fw={500}>
              Continue where you left off
            </Anchor>
          </Text>
        )}
        <Text size="sm" c="dimmed" ta="center">
          Want a separate account for this code?{' '}
          <Anchor
            component="button"
            type="button"
            fw={500}
            onClick={() => logout.mutate()}
            disabled={logout.isPending}
          >
            Log out
          </Anchor>{' '}
          and register with it here.
        </Text>
      </Stack>
    </>
  );
}

function RedemptionsCard() {
  const redemptions = useRedemptions();
  const rows = redemptions.data?.redemptions ?? [];
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Text fw={600}>Codes on this account</Text>
        <ListBody
          query={redemptions}
          loadingLabel="Loading the codes on this account"
          skeletonHeights={[32, 32]}
          errorFallback="We couldn't load the codes on this account."
          isEmpty={rows.length === 0}
          empty={
            <Text size="sm" c="dimmed">
              No code has been redeemed on this account yet.
            </Text>
          }
        >
          <Table.ScrollContainer minWidth={320}>
            <Table verticalSpacing="xs" fz="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Code</Table.Th>
                  <Table.Th>People</Table.Th>
                  <Table.Th>Redeemed</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => (
                  <Table.Tr key={`${row.codeHint}-${row.redeemedAt}`}>
                    <Table.Td ff="monospace">{row.codeHint}</Table.Td>
                    <Table.Td>up to {people(row.peopleUpperLimit)}</Table.Td>
                    <Table.Td>{new Date(row.redeemedAt).toLocaleDateString()}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </ListBody>
      </Stack>
    </Paper>
  );
}
