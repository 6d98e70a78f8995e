import { emailMessages, type Account } from '@herald/contracts';

type EmailFont = Account['emailFonts'][number];
import {
  Anchor,
  Button,
  Card,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlus, IconTypography } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useUpdateAccount } from '../account/account.api.ts';
import { EmailSettingsNav } from '../senders/email-settings-nav.tsx';
import { useEmailSettingsAccess } from './email-settings-access.ts';

function AddFontModal({
  opened,
  onClose,
  fonts,
}: {
  opened: boolean;
  onClose: () => void;
  fonts: EmailFont[];
}) {
  const update = useUpdateAccount();
  const [family, setFamily] = useState('');
  const [url, setUrl] = useState('');
  const [errors, setErrors] = useState<{ family?: string; url?: string }>({});
  const close = () => {
    setFamily('');
    setUrl('');
    setErrors({});
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: { family?: string; url?: string } = {};
    if (!family.trim()) found.family = 'Enter the font family, as CSS names it.';
    else if (fonts.some((font) => font.family.toLowerCase() === family.trim().toLowerCase()))
      found.family = 'This font is already in the list.';
    let parsed: URL | null = null;
    try {
      parsed = new URL(url.trim());
    } catch {
      parsed = null;
    }
    if (!parsed || parsed.protocol !== 'https:')
      found.url = 'Enter the https address of the font’s stylesheet.';
    setErrors(found);
    if (found.family || found.url) return;
    update.mutate(
      { emailFonts: [...fonts, { family: family.trim(), url: url.trim() }] },
      {
        onSuccess: () => (notifySuccess(`✅ ${family.trim()} added.`), close()),
        onError: (error) => notifyError(error, emailMessages.fontSaveError),
      },
    );
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a font">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Font family"
            withAsterisk
            placeholder="Inter"
            value={family}
            onChange={(e) => setFamily(e.currentTarget.value)}
            error={errors.family}
            data-autofocus
          />
          <TextInput
            label="Stylesheet URL"
            withAsterisk
            description="The CSS that declares the font, e.g. from your font provider."
            placeholder="https://fonts.example.com/css?family=Inter"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={errors.url}
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={update.isPending}>
              Add font
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** /settings/email/fonts: web fonts the email editors offer, each with the stylesheet that declares it. */
export function EmailFontsPage() {
  const { account, canWrite } = useEmailSettingsAccess();
  const update = useUpdateAccount();
  const [adding, setAdding] = useState(false);
  const fonts = account.data?.emailFonts ?? [];

  const remove = (font: EmailFont) =>
    modals.openConfirmModal({
      title: `Delete ${font.family}?`,
      children: (
        <Text size="sm">
          Emails that use it fall back to the next font in their list, usually Arial or Helvetica.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        update.mutate(
          { emailFonts: fonts.filter((item) => item.family !== font.family) },
          {
            onSuccess: () => notifySuccess(`✅ ${font.family} deleted.`),
            onError: (error) => notifyError(error, emailMessages.fontDeleteError),
          },
        ),
    });

  const add = canWrite && (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
      Add Font
    </Button>
  );
  return (
    <ListPage
      title="Email Fonts"
      description="Custom web fonts for your emails. Clients that don't load web fonts show the fallback."
      actions={add}
      back={
        <Anchor component={Link} to="/settings/email/general" size="sm" c="dimmed">
          ← Email settings
        </Anchor>
      }
      tabs={<EmailSettingsNav />}
      maw={900}
      isReady={account.data !== undefined}
      readOnly={
        !canWrite &&
        'You can see the fonts. Changing them needs the “Email settings” or “Account settings” permission.'
      }
      query={account}
      loadingLabel="Loading your account"
      errorFallback="We couldn't load your account."
      isEmpty={fonts.length === 0}
      empty={
        <EmptyState
          icon={<IconTypography size={28} />}
          title="No custom fonts"
          description="Emails use web-safe fonts (Arial, Helvetica, Georgia…) by default. Add a web font with its stylesheet to use your brand's typeface; Apple Mail and iOS show it, other clients fall back."
          action={
            canWrite ? (
              <Button variant="light" onClick={() => setAdding(true)}>
                Add Font
              </Button>
            ) : undefined
          }
        />
      }
      after={
        <>
          <Card withBorder radius="md" padding="md">
            <Text size="sm" c="dimmed">
              Fonts load only in the emails that use them; nothing is fetched from a font's address inside
              Herald.
            </Text>
          </Card>
          <AddFontModal opened={adding} onClose={() => setAdding(false)} fonts={fonts} />
        </>
      }
    >
      <TableCard minWidth={480}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Family</Table.Th>
            <Table.Th>Stylesheet</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {fonts.map((font) => (
            <Table.Tr key={font.family}>
              <Table.Td>
                <Text fw={600} size="sm">
                  {font.family}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed" style={{ wordBreak: 'break-all' }}>
                  {font.url}
                </Text>
              </Table.Td>
              <Table.Td ta="right">
                {canWrite && (
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    onClick={() => remove(font)}
                    aria-label={`Delete ${font.family}`}
                  >
                    Delete
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
