import { emailMessages, type EmailSummary } from '@herald/contracts';
import { Button, Group } from '@mantine/core';
import { IconMail, IconPlus, IconSearch, IconSettings } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useListState } from '../../lib/use-list-state.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListFilters } from '../../ui/list-filters.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { DuplicateEmailDialog } from './duplicate-email-dialog.tsx';
import { useEmails, type ArchivedFilter } from './emails.api.ts';
import { EmailsTable } from './emails-table.tsx';
import { NewEmailModal } from './new-email-modal.tsx';

/** The list's own query parameters: they survive opening an email and coming back (docs/emails.md). */
export const emailListParams = { archived: 'emails-archived', search: 'emails-search' } as const;

/** /emails: the account's emails with folders and favourites, search, archived ones on request, and their figures. */
export function EmailsPage() {
  const { isReady, canRead, canWrite } = useAccess(['emails:read'], ['emails:write']);
  const filters = useListState({ archived: false, search: '' }, { params: emailListParams });
  const archived: ArchivedFilter = filters.values.archived ? 'true' : 'false';
  const search = filters.values.search;
  const emails = useEmails(archived, { enabled: canRead });
  const [creating, setCreating] = useState(false);
  const [copying, setCopying] = useState<EmailSummary | null>(null);
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const isNarrow = useIsNarrow();
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

  const query = search.trim().toLowerCase();
  const all = emails.data?.emails ?? [];
  const list = all.filter(
    (email) =>
      !query || email.name.toLowerCase().includes(query) || email.subject.toLowerCase().includes(query),
  );

  return (
    <ListPage
      title="Emails"
      description="The emails your flows and broadcasts send: write them once, personalise them for everyone."
      actions={
        <Group gap="sm">
          <Button
            variant="default"
            component={Link}
            to="/settings/email/general"
            leftSection={<IconSettings size={16} />}
          >
            Email settings
          </Button>
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New Email
            </Button>
          )}
        </Group>
      }
      isReady={isReady}
      gate={seeGate(canRead, 'emails', 'See emails')}
      readOnly={
        !canWrite && 'You can see emails. Writing and changing them needs the “Edit emails” permission.'
      }
      sidebar={(narrow) => (
        <FolderTree
          folderType="emails"
          title="Email folders"
          items={(archived === 'false' ? all : []).map((email) => ({ id: email.id, label: email.name }))}
          canWrite={canWrite}
          w={narrow ? '100%' : 240}
          onItemClick={(item) => void navigate(`/emails/${item.id}${location.search}`)}
          deleteWarning="The emails inside this folder are archived; you can restore them from Archived."
        />
      )}
      toolbar={
        <ListFilters
          searchLabel="Search emails"
          placeholder="Search by name or subject"
          search={search}
          onSearch={(value) => filters.set({ search: value })}
          archived={{
            label: 'Which emails',
            value: filters.values.archived,
            onChange: (value) => filters.set({ archived: value }),
          }}
        />
      }
      query={emails}
      loadingLabel="Loading emails"
      errorFallback={emailMessages.retrieveFallback}
      isEmpty={all.length === 0}
      empty={
        archived === 'true' ? (
          <EmptyState
            icon={<IconMail size={28} />}
            title="No archived emails"
            description="Emails you archive land here, and you can restore them at any time."
          />
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
        )
      }
      isNoMatch={list.length === 0}
      noMatch={
        <EmptyState
          icon={<IconSearch size={28} />}
          title="No email matches"
          description={`Nothing named or titled “${search.trim()}”.`}
        />
      }
      after={
        <>
          {canWrite && <NewEmailModal opened={creating} onClose={() => setCreating(false)} />}
          <DuplicateEmailDialog email={copying} onClose={() => setCopying(null)} />
        </>
      }
    >
      <EmailsTable
        emails={list}
        canWrite={canWrite}
        isNarrow={isNarrow}
        search={location.search}
        onDuplicate={setCopying}
      />
    </ListPage>
  );
}
