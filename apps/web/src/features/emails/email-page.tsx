import { emailMessages, hasScopes, type EmailWarning } from '@herald/contracts';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  TextInput,
} from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import {
  IconAlertTriangle,
  IconArrowLeft,
  IconChecklist,
  IconDeviceFloppy,
  IconLock,
  IconSend,
} from '@tabler/icons-react';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useBlocker, useLocation, useParams } from 'react-router';
import { api } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { listReturnPath } from '../../lib/use-list-state.ts';
import { DetailPage, DetailSkeleton } from '../../ui/detail-page.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useAccount } from '../account/account.api.ts';
import { AiWriterButton } from '../ai-writer/ai-writer-button.tsx';
import { SendFigures } from '../metrics/send-figures.tsx';
import { EmailIdTag } from '../transactional/email-id-tag.tsx';
import { changesOf, draftOf, renderableOf, validate, type EmailDraftState } from './email-draft.ts';
import { EmailSettingsPanel } from './email-settings-panel.tsx';
import { EmailWarningsDialog } from './email-warnings-dialog.tsx';
import { EditorSwitch } from './editor-switch.tsx';
import { editorLabel } from './editor-types.ts';
import { useEmail, useUpdateEmail } from './emails.api.ts';
import { MergeTagPicker } from './merge-tag-picker.tsx';
import { PreviewPane } from './preview-pane.tsx';
import { SendTestDialog } from './send-test-dialog.tsx';
import { RenderedEmail } from '@herald/contracts';

// Each editor is its own chunk, loaded when an email written in it is opened.
const HtmlEditor = lazy(() => import('./editors/html-editor.tsx'));
const RichTextEditor = lazy(() => import('./editors/rich-text-editor.tsx'));
const DragDropEditor = lazy(() => import('./editors/drag-drop-editor.tsx'));

/** /emails/{id}: write, preview and test one email; view-only without emails:write. */
/** Writing, seeing the rendered email, or its figures since it was first sent. */
type Mode = 'edit' | 'preview' | 'performance';

export function EmailPage() {
  const id = Number(useParams().id);
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['emails:write']) : false;
  const email = useEmail(id);
  const update = useUpdateEmail();
  const [draft, setDraft] = useState<EmailDraftState | null>(null);
  const [dirty, setDirty] = useState(false);
  const [mode, setMode] = useState<Mode>('edit');
  const [errors, setErrors] = useState<{ subject?: string; fromEmail?: string }>({});
  const [testing, setTesting] = useState(false);
  const [warnings, setWarnings] = useState<{ list: EmailWarning[]; thenTest: boolean } | null>(null);
  const [checking, setChecking] = useState(false);
  const insertRef = useRef<((text: string) => void) | null>(null);
  const onInsertReady = useCallback(
    (insert: ((text: string) => void) | null) => (insertRef.current = insert),
    [],
  );
  const readOnly = !canWrite || Boolean(email.data?.email.archived);
  // Back to the list as it was left: its search and Active/Archived came along in the address.
  const backPath = listReturnPath('/emails', 'emails', useLocation().search);

  useEffect(() => {
    setDraft(null);
    setDirty(false);
  }, [id]);
  useEffect(() => {
    if (email.data && email.data.email.id === id && draft === null) setDraft(draftOf(email.data.email));
  }, [email.data, draft, id]);

  const change = (changes: Partial<EmailDraftState>) => {
    setDraft((current) => (current ? { ...current, ...changes } : current));
    setDirty(true);
    if ('subject' in changes || 'fromEmail' in changes) setErrors({});
  };

  const save = () => {
    if (!draft || readOnly || update.isPending) return;
    const found = validate(draft);
    setErrors(found);
    if (found.subject || found.fromEmail) return;
    update.mutate(
      { id, changes: changesOf(draft) },
      {
        onSuccess: () => {
          setDirty(false);
          notifySuccess('✅ Email saved.');
        },
        onError: (error) => notifyError(error, emailMessages.saveError),
      },
    );
  };
  useHotkeys([['mod+S', save]], []);

  // Leaving with unsaved changes asks first, inside the app and when the tab closes.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm('You have unsaved changes. Leave without saving?')) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const check = async (thenTest: boolean) => {
    if (!draft) return;
    setChecking(true);
    try {
      const rendered = await api.post(
        '/emails/preview',
        { email: renderableOf(draft) },
        { schema: RenderedEmail },
      );
      if (thenTest && rendered.warnings.length === 0) setTesting(true);
      else setWarnings({ list: rendered.warnings, thenTest });
    } catch (error) {
      notifyError(error, emailMessages.testError);
    } finally {
      setChecking(false);
    }
  };

  const view = (draft: EmailDraftState) => {
    if (!account.data) return null; // the loader waits for it
    const editorProps = {
      value: draft.editor,
      onChange: (editor: typeof draft.editor) => change({ editor }),
      readOnly,
      onInsertReady,
    };
    return (
      <Stack gap="md" py="md">
        <Anchor component={Link} to={backPath} size="sm" c="dimmed">
          <Group gap={4}>
            <IconArrowLeft size={14} aria-hidden /> Emails
          </Group>
        </Anchor>
        <Group justify="space-between" align="center" wrap="wrap" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ flex: 1, minWidth: 240 }}>
            <TextInput
              aria-label="Email name"
              value={draft.name}
              onChange={(e) => change({ name: e.currentTarget.value })}
              readOnly={readOnly}
              variant="unstyled"
              fz={24}
              fw={700}
              styles={{ input: { fontSize: 24, fontWeight: 700 } }}
              style={{ flex: 1 }}
            />
            <Badge variant="light" color="gray" tt="none">
              {editorLabel(draft.editor.type)}
            </Badge>
            {dirty && (
              <Badge color="orange" variant="dot" tt="none">
                Unsaved
              </Badge>
            )}
            <EmailIdTag id={id} />
          </Group>
          <Group gap="xs" wrap="wrap">
            <SegmentedControl
              aria-label="Mode"
              value={mode}
              onChange={(value) => setMode(value as Mode)}
              data={[
                { value: 'edit', label: readOnly ? 'View' : 'Edit' },
                { value: 'preview', label: 'Preview' },
                { value: 'performance', label: 'Performance' },
              ]}
            />
            {mode === 'edit' && !readOnly && (
              <MergeTagPicker onInsert={(liquid) => insertRef.current?.(liquid)} />
            )}
            {mode === 'edit' && !readOnly && (
              <AiWriterButton
                canAccess={account.data.flags.canAccessAIWriter}
                companyName={account.data.accountName ?? account.data.name ?? ''}
                editorType={draft.editor.type}
                onInsertSubject={(subject) => change({ subject })}
                onInsertBody={(html) => (insertRef.current ? (insertRef.current(html), true) : false)}
              />
            )}
            {mode === 'edit' && !readOnly && (
              <EditorSwitch
                editor={draft.editor}
                onSwitch={(editor) => change({ editor })}
                disabled={readOnly}
              />
            )}
            <Button
              variant="default"
              leftSection={<IconChecklist size={16} />}
              onClick={() => void check(false)}
              loading={checking && !testing}
            >
              Check
            </Button>
            {canWrite && (
              <Button variant="default" leftSection={<IconSend size={16} />} onClick={() => void check(true)}>
                Send test
              </Button>
            )}
            {!readOnly && (
              <Button
                leftSection={<IconDeviceFloppy size={16} />}
                onClick={save}
                loading={update.isPending}
                disabled={!dirty}
              >
                Save
              </Button>
            )}
          </Group>
        </Group>
        {!canWrite && (
          <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
            You can see this email. Changing it needs the “Edit emails” permission.
          </Alert>
        )}
        {email.data?.email.archived && (
          <Alert variant="light" color="yellow" icon={<IconAlertTriangle size={18} />}>
            This email is archived. Restore it from the Archived list to change it.
          </Alert>
        )}
        <EmailSettingsPanel draft={draft} onChange={change} readOnly={readOnly} errors={errors} />
        {mode === 'performance' ? (
          <Paper withBorder radius="md" p="lg">
            <SendFigures subject={{ emailId: id }} />
          </Paper>
        ) : mode === 'preview' ? (
          <PreviewPane draft={renderableOf(draft)} />
        ) : (
          <Suspense
            fallback={
              <Group justify="center" py="xl">
                <LoadingSpinner label="Loading the editor" />
              </Group>
            }
          >
            {draft.editor.type === 'html' && (
              <HtmlEditor key="html" {...editorProps} subject={draft.subject} />
            )}
            {draft.editor.type === 'richtext' && <RichTextEditor key="richtext" {...editorProps} />}
            {draft.editor.type === 'dragdrop' && <DragDropEditor key="dragdrop" {...editorProps} />}
          </Suspense>
        )}
        <SendTestDialog
          opened={testing}
          onClose={() => setTesting(false)}
          draft={renderableOf(draft)}
          defaultAddress={account.data.teamMember.email ?? ''}
        />
        <EmailWarningsDialog
          warnings={warnings?.list ?? null}
          onFix={() => setWarnings(null)}
          {...(warnings?.thenTest
            ? { onContinue: () => (setWarnings(null), setTesting(true)), continueLabel: 'Send test anyway' }
            : {})}
        />
      </Stack>
    );
  };

  return (
    <DetailPage
      query={{ ...email, isPending: email.isPending || !account.data || !draft, data: draft }}
      loadingLabel="Loading email"
      skeleton={<DetailSkeleton label="Loading email" heights={[120, 480]} />}
      notFound={{
        title: 'Email not found',
        description: 'It may have been copied into another account or never existed.',
        back: { to: backPath, label: 'Back to emails' },
      }}
      errorFallback={emailMessages.retrieveFallback}
    >
      {view}
    </DetailPage>
  );
}
