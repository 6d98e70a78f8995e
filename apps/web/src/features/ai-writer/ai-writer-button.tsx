import { aiWriterMessages, type AiSuggestion, type EmailEditorType } from '@herald/contracts';
import { Alert, Button, Code, List, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconInfoCircle, IconSparkles } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { notifySuccess } from '../../lib/notify.ts';
import { bodyFragment } from './ai-insert.ts';
import { useAiSuggestions } from './ai-writer.api.ts';
import { AiWriterModal } from './ai-writer-modal.tsx';

export interface AiWriterButtonProps {
  /** The account flag canAccessAIWriter: a provider is configured and the account may use it. */
  canAccess: boolean;
  companyName: string;
  editorType: EmailEditorType;
  /** Absent on a view-only email. */
  onInsertSubject: ((subject: string) => void) | undefined;
  /** Inserts HTML into the open editor; false when no editor is ready to take it. */
  onInsertBody: ((html: string) => boolean) | undefined;
}

/** The email editor's AI button: the writer when the account may use it, otherwise how to turn it on. */
export function AiWriterButton({
  canAccess,
  companyName,
  editorType,
  onInsertSubject,
  onInsertBody,
}: AiWriterButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const insert = (suggestion: AiSuggestion) => {
    if (suggestion.useCase === 'subjectLine') {
      onInsertSubject?.(suggestion.content);
      close();
      notifySuccess('Subject replaced. Save the email to keep it.');
      return;
    }
    if (onInsertBody?.(bodyFragment(suggestion.useCase, suggestion.content, editorType))) {
      close();
      notifySuccess('Text inserted. Save the email to keep it.');
    } else {
      notifications.show({
        color: 'yellow',
        message: 'The editor is still loading: copy the text and paste it instead.',
      });
    }
  };
  const canInsert = onInsertSubject && onInsertBody;
  return (
    <>
      <Button variant="default" size="sm" leftSection={<IconSparkles size={16} />} onClick={open}>
        AI writer
      </Button>
      {canAccess ? (
        <AiWriterModal
          opened={opened}
          onClose={close}
          companyName={companyName}
          editorType={editorType}
          onInsert={canInsert ? insert : undefined}
        />
      ) : (
        <AiWriterOff opened={opened} onClose={close} />
      )}
    </>
  );
}

/** Why the writer is not available: the server's own reason (no provider, or an inactive plan), and how to turn it on. */
function AiWriterOff({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const reason = useAiSuggestions({ enabled: opened });
  const message = reason.isError
    ? errorMessage(reason.error, aiWriterMessages.notEnabled)
    : aiWriterMessages.notEnabled;
  // An inactive plan is the account's matter; the server settings below are the operator's.
  const isPlanMatter = isApiError(reason.error) && reason.error.body.errorCode === 'ai-plan-inactive';
  return (
    <Modal opened={opened} onClose={onClose} title="The AI writer is off" size="md">
      <Stack gap="sm">
        <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />}>
          {reason.isPending ? 'Checking…' : message}
        </Alert>
        {!isPlanMatter && (
          <>
            <Text size="sm">
              The AI writer drafts subject lines, whole emails and outlines from a short brief. To turn it on,
              whoever runs this Herald server sets:
            </Text>
            <List size="sm" spacing={4}>
              <List.Item>
                <Code>AI_BASE_URL</Code>: any OpenAI-compatible endpoint, such as https://api.openai.com/v1 or
                a model server of your own
              </List.Item>
              <List.Item>
                <Code>AI_API_KEY</Code>: its key (and <Code>AI_MODEL</Code> to choose the model)
              </List.Item>
            </List>
            <Text size="sm" c="dimmed">
              Then restart the server. Nothing is sent to any model until then.
            </Text>
          </>
        )}
        <Button variant="default" onClick={onClose} w="fit-content" ml="auto">
          Close
        </Button>
      </Stack>
    </Modal>
  );
}
