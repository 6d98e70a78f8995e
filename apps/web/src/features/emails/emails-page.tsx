import { emailMessages, hasScopes, type EmailSummary } from '@herald/contracts';
import { Alert, Box, Button, Group, SegmentedControl, Stack, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconLock, IconMail, IconPlus, IconSearch, IconSettings } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { DuplicateEmailDialog } from './duplicate-email-dialog.tsx';
import { useEmails, type ArchivedFilter } from './emails.api.ts';
import { EmailsTable } from './emails-table.tsx';
import { NewEmailModal } from './new-email-modal.tsx';
import { ListSkeleton } from '../../ui/list-skeleton.tsx';

/** /emails: the account's emails with folders and favourites, search, archived ones on request, and their figures. */
export function EmailsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['emails:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['emails:write']) : false;
  const [archived, setArchived] = useState<ArchivedFilter>('false');
  const emails = useEmails(archived, { enabled: canRead });
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);
  const [copying, setCopying] = useState<EmailSummary | null>(null);
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const isNarrow = useMediaQuery('(max-width: 899px)');
  const emailParam = params.get('email');

  // `?new=1` opens the new-email dialog (the dashboard and empty states link here).
  useEffect(() => {
    if (params.get('new') === '1' && canWrite) {
      setCreating(true);
      params.delete('new');
      setParams(params, { replace: true });
    }
  }, [params, setParams, canWrite]);

  if (emailParam && /^\d+$/.test(emailParam)) return <Navigate to={`/emails/${emailParam}`} replace />;
  if (!account.data) return <LoadingSpinner />;

  const header = (
    <PageHeader
      title="Emails"
      description="The emails your flows and broadcasts send: write them once, personalise them for everyone."
      actions={
        <Group gap="sm">
          <Button variant="default" component={Link} to="/settings/email/general" leftSection={<IconSettings size={16} />}>
            Email settings
          </Button>
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New Email
            </Button>
          )}
        </Group>
      }
    />
  );
  if (!canRead) {
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmptyState icon={<IconLock size={28} />} title="You can't see emails" description="Seeing emails needs the “See emails” permission. Ask an owner of the account to give it to you." />
      </Stack>
    );
  }

  const query = search.trim().toLowerCase();
  const list = (emails.data?.emails ?? []).filter((email) => !query || email.name.toLowerCase().includes(query) || email.subject.toLowerCase().includes(query));
  const all = emails.data?.emails ?? [];

  let content;
  if (emails.isPending)
    content = <ListSkeleton label="Loading emails" />;
  else if (emails.isError) content = <LoadError message={errorMessage(emails.error, emailMessages.retrieveFallback)} onRetry={() => void emails.refetch()} />;
  else if (all.length === 0)
    content =
      archived === 'true' ? (
        <EmptyState icon={<IconMail size={28} />} title="No archived emails" description="Emails you archive land here, and you can restore them at any time." />
      ) : (
        <EmptyState
          icon={<IconMail size={28} />}
          title="No emails yet"
          description="Write a welcome email, a newsletter or an announcement — start blank in the editor you like, or from a template."
          action={
            canWrite ? (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                Create your first email
              </Button>
            ) : undefined
          }
        />
      );
  else if (list.length === 0) content = <EmptyState icon={<IconSearch size={28} />} title="No email matches" description={`Nothing named or titled “${search.trim()}”.`} />;
  else content = <EmailsTable emails={list} canWrite={canWrite} isNarrow={Boolean(isNarrow)} onDuplicate={setCopying} />;

  return (
    <Stack gap="lg" py="md">
      {header}
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see emails. Writing and changing them needs the “Edit emails” permission.
        </Alert>
      )}
      <Group align="flex-start" gap="lg" wrap={isNarrow ? 'wrap' : 'nowrap'}>
        <FolderTree
          folderType="emails"
          title="Email folders"
          items={(archived === 'false' ? all : []).map((email) => ({ id: email.id, label: email.name }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={(item) => void navigate(`/emails/${item.id}`)}
          deleteWarning="The emails inside this folder are archived; you can restore them from Archived."
        />
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
          <Group gap="sm" wrap="wrap">
            <TextInput
              aria-label="Search emails"
              placeholder="Search by name or subject"
              leftSection={<IconSearch size={16} />}
              value={search}
              onChange={(event) => setSearch(event.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <SegmentedControl
              aria-label="Which emails"
              value={archived}
              onChange={(value) => setArchived(value as ArchivedFilter)}
              data={[
                { value: 'false', label: 'Active' },
                { value: 'true', label: 'Archived' },
              ]}
            />
          </Group>
          <Box>{content}</Box>
        </Stack>
      </Group>
      {canWrite && <NewEmailModal opened={creating} onClose={() => setCreating(false)} />}
      <DuplicateEmailDialog email={copying} onClose={() => setCopying(null)} />
    </Stack>
  );
}
