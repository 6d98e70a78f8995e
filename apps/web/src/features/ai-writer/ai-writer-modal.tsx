import {
  aiUseCaseLabels,
  aiUseCases,
  aiWriterLimits,
  aiWriterMessages,
  type AiSuggestion,
  type AiUseCase,
  type EmailEditorType,
} from '@herald/contracts';
import {
  Alert,
  Autocomplete,
  Button,
  Group,
  Modal,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconAlertCircle, IconSparkles } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { insertHints } from './ai-insert.ts';
import { AiSuggestionItem } from './ai-suggestion-item.tsx';
import { useAiSuggestions, useGenerateSuggestions } from './ai-writer.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

const tones = ['Friendly', 'Professional', 'Playful', 'Persuasive', 'Formal', 'Casual', 'Enthusiastic'];

const aboutLabels: Record<AiUseCase, string> = {
  subjectLine: 'What is the email about?',
  writeEmail: 'What should the email say?',
  emailOutline: 'What should the email cover?',
};

export interface AiWriterModalProps {
  opened: boolean;
  onClose: () => void;
  /** Prefills the company name (the account's name). */
  companyName: string;
  editorType: EmailEditorType;
  /** Absent when the email cannot be changed (view-only): then only Copy is offered. */
  onInsert: ((suggestion: AiSuggestion) => void) | undefined;
}

/** The AI writer (docs/ai-writer.md): a brief, Generate, and the suggestions newest first with Copy and Insert. */
export function AiWriterModal({ opened, onClose, companyName, editorType, onInsert }: AiWriterModalProps) {
  const isNarrow = useIsNarrow('phone');
  const [useCase, setUseCase] = useState<AiUseCase>('writeEmail');
  const [emailAbout, setEmailAbout] = useState('');
  const [company, setCompany] = useState(companyName);
  const [tone, setTone] = useState('');
  const suggestions = useAiSuggestions({ enabled: opened });
  const generate = useGenerateSuggestions();
  const canGenerate = emailAbout.trim() !== '' && company.trim() !== '' && !generate.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canGenerate) return;
    generate.mutate({
      useCase,
      parameters: {
        emailAbout: emailAbout.trim(),
        companyName: company.trim(),
        ...(tone.trim() ? { tone: tone.trim() } : {}),
      },
    });
  };

  const shown = (suggestions.data?.suggestions ?? []).filter((suggestion) => suggestion.useCase === useCase);
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="xl"
      fullScreen={isNarrow}
      title={
        <Group gap="xs">
          <IconSparkles size={20} aria-hidden />
          <Title order={2} size="h4">
            AI writer
          </Title>
        </Group>
      }
    >
      <Stack gap="md">
        <form onSubmit={submit} aria-label="Brief for the AI writer">
          <Stack gap="sm">
            <SegmentedControl
              aria-label="Use case"
              fullWidth
              value={useCase}
              onChange={(value) => setUseCase(value as AiUseCase)}
              data={aiUseCases.map((value) => ({ value, label: aiUseCaseLabels[value] }))}
            />
            <Textarea
              label={aboutLabels[useCase]}
              description={`${emailAbout.length} / ${aiWriterLimits.emailAbout} characters`}
              placeholder="Our spring sale starts Monday: 30% off every bike, for one week only."
              required
              autosize
              minRows={3}
              maxRows={8}
              maxLength={aiWriterLimits.emailAbout}
              value={emailAbout}
              onChange={(event) => setEmailAbout(event.currentTarget.value)}
              data-autofocus
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <TextInput
                label="Company name"
                required
                maxLength={aiWriterLimits.companyName}
                value={company}
                onChange={(event) => setCompany(event.currentTarget.value)}
              />
              <Autocomplete
                size="md"
                label="Tone"
                placeholder="Friendly"
                data={tones}
                maxLength={aiWriterLimits.tone}
                value={tone}
                onChange={setTone}
              />
            </SimpleGrid>
            <Group justify="flex-end">
              <Button
                type="submit"
                leftSection={<IconSparkles size={16} />}
                disabled={!canGenerate}
                loading={generate.isPending}
              >
                Generate
              </Button>
            </Group>
          </Stack>
        </form>
        {generate.isError && (
          <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
            {errorMessage(generate.error, aiWriterMessages.couldNotRetrieve)}
          </Alert>
        )}
        <Stack gap="xs">
          <Group justify="space-between" gap="xs">
            <Title order={3} size="h5">
              {aiUseCaseLabels[useCase]} suggestions
            </Title>
            {onInsert && (
              <Text size="xs" c="dimmed">
                {useCase === 'subjectLine'
                  ? 'Use as subject replaces the email’s subject.'
                  : insertHints[editorType]}
              </Text>
            )}
          </Group>
          {generate.isPending && (
            <Stack gap="xs" role="status" aria-label="Writing suggestions">
              <Text size="sm" c="dimmed">
                Writing… this can take a few seconds.
              </Text>
              <Skeleton h={56} />
            </Stack>
          )}
          <ListBody
            query={suggestions}
            loadingLabel="Loading suggestions"
            skeletonHeights={[56, 56]}
            errorFallback={aiWriterMessages.couldNotRetrieve}
            isEmpty={shown.length === 0}
            empty={
              <Text size="sm" c="dimmed">
                No suggestions yet. Describe the email above and press Generate.
              </Text>
            }
          >
            <Stack gap="xs" component="ul" p={0} m={0} aria-label={`${aiUseCaseLabels[useCase]} suggestions`}>
              {shown.map((suggestion) => (
                <AiSuggestionItem
                  key={suggestion.id}
                  suggestion={suggestion}
                  onInsert={onInsert ? () => onInsert(suggestion) : undefined}
                />
              ))}
            </Stack>
          </ListBody>
        </Stack>
      </Stack>
    </Modal>
  );
}
