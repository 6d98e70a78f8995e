import { flowCopyMessages } from '@herald/contracts';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';

/**
 * The register dialog of a shared flow for a visitor who is not logged in (docs/flows.md): sign up or log in, and
 * come back to the same link, where 'Copy this flow to your account' then opens the copy dialog.
 */
export function RegisterToCopyDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const location = useLocation();
  const back = `${location.pathname}${location.search}`;
  const signUp = `/register?${new URLSearchParams({ 'after-register': back }).toString()}`;
  const logIn = `/login?${new URLSearchParams({ redirect: back }).toString()}`;
  return (
    <Modal opened={opened} onClose={onClose} title={flowCopyMessages.copyToYourAccount}>
      <Stack gap="md">
        <Text size="sm">
          To copy this flow, sign up for Herald or log in. You come back to this flow afterwards and can copy
          it into your account, with the emails, segments and custom fields it uses.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" component={Link} to={logIn}>
            Log in
          </Button>
          <Button component={Link} to={signUp}>
            Sign up
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
