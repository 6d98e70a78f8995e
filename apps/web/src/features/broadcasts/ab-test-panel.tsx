import {
  AbTestInput,
  abTestLimits,
  abTestMetrics,
  abTestSplit,
  abTestVariantNames,
  type AbTest,
  type AbTestMetric,
  type AbTestResults,
  type Broadcast,
  type EmailSummary,
} from '@herald/contracts';
import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Paper,
  Select,
  Slider,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconAlertTriangle, IconFlask, IconPlus, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { AbTestResultsTable } from './ab-test-results.tsx';

interface DraftVariant {
  name: string;
  /** Empty: the email's own subject. */
  subject: string;
  emailId: number | null;
}

interface Draft {
  variants: DraftVariant[];
  testShare: number;
  metric: AbTestMetric;
  waitHours: number;
}

const newDraft = (): Draft => ({
  variants: [
    { name: 'A', subject: '', emailId: null },
    { name: 'B', subject: '', emailId: null },
  ],
  testShare: 20,
  metric: 'opens',
  waitHours: 4,
});
const draftOf = (test: AbTest): Draft => ({
  variants: test.variants.map((variant) => ({
    name: variant.name,
    subject: variant.subject ?? '',
    emailId: variant.emailId,
  })),
  testShare: test.testShare,
  metric: test.metric,
  waitHours: test.waitHours,
});
/** The body the API takes for a draft. */
const inputOf = (draft: Draft) => ({
  variants: draft.variants.map((variant) => ({
    name: variant.name,
    subject: variant.subject.trim() || null,
    emailId: variant.emailId,
  })),
  testShare: draft.testShare,
  metric: draft.metric,
  waitHours: draft.waitHours,
});
const sameSettings = (draft: Draft, test: AbTest | null) =>
  test !== null && JSON.stringify(inputOf(draft)) === JSON.stringify(inputOf(draftOf(test)));
/** Positions keep their letters when every name is still the default one. */
const relettered = (variants: DraftVariant[]) =>
  variants.every((variant) => (abTestVariantNames as readonly string[]).includes(variant.name))
    ? variants.map((variant, index) => ({ ...variant, name: abTestVariantNames[index]! }))
    : variants;

/** What the settings will do (or, once the test started, did), in one sentence. */
export function abTestSentence(
  settings: { testShare: number; waitHours: number; metric: AbTestMetric; variantCount: number },
  recipients: number | null,
  started = false,
): string {
  const hours = `${settings.waitHours} ${settings.waitHours === 1 ? 'hour' : 'hours'}`;
  const better = `the variant with more ${settings.metric}`;
  if (started)
    return `${settings.testShare}% of the recipients got one of ${settings.variantCount} variants; after ${hours} ${better} went to the rest.`;
  if (recipients === null)
    return `${settings.testShare}% of the recipients get one of ${settings.variantCount} variants; after ${hours} ${better} goes to the rest.`;
  const split = abTestSplit(recipients, settings.testShare, settings.variantCount);
  return `${settings.testShare}% of ${recipients.toLocaleString()} ${recipients === 1 ? 'recipient gets' : 'recipients get'} one of ${settings.variantCount} variants; after ${hours} ${better} goes to the other ${split.rest.toLocaleString()}.`;
}

interface AbTestPanelProps {
  broadcast: Broadcast;
  emails: EmailSummary[] | undefined;
  /** Draft or scheduled, and the member may write broadcasts. */
  canEdit: boolean;
  /** Deliverable recipients of the audience on screen, when counted. */
  recipients: number | null;
  /** The test's figures from the status answer, once it started. */
  results: AbTestResults | null;
  onSave: (abTest: ReturnType<typeof inputOf> | null) => void;
  /** Why the test on screen cannot be saved (it blocks the send), or null. */
  onProblem: (problem: string | null) => void;
}

/** The A/B test of a broadcast: set up while it is editable (saved once valid), then its variants and figures. */
export function AbTestPanel({
  broadcast,
  emails,
  canEdit,
  recipients,
  results,
  onSave,
  onProblem,
}: AbTestPanelProps) {
  const stored = broadcast.abTest;
  const [draft, setDraft] = useState<Draft | null>(stored ? draftOf(stored) : null);
  useEffect(() => setDraft(stored ? draftOf(stored) : null), [broadcast.id]);
  const [settled] = useDebouncedValue(draft, 500);
  const parsed = draft ? AbTestInput.safeParse(inputOf(draft)) : null;
  const problem =
    parsed && !parsed.success ? (parsed.error.issues[0]?.message ?? 'The A/B test is not complete.') : null;

  useEffect(() => onProblem(canEdit ? problem : null), [problem, canEdit]);
  useEffect(() => {
    if (!canEdit || !settled || sameSettings(settled, stored)) return;
    if (AbTestInput.safeParse(inputOf(settled)).success) onSave(inputOf(settled));
    // Saves once the settings on screen have settled, are valid and differ from the stored ones.
  }, [settled, canEdit]);

  if (!canEdit && !stored) return null;
  const toggle = (on: boolean) => {
    if (on) return setDraft(newDraft());
    setDraft(null);
    if (stored) onSave(null);
  };
  const change = (next: Partial<Draft>) =>
    setDraft((current) => (current ? { ...current, ...next } : current));
  const changeVariant = (index: number, next: Partial<DraftVariant>) =>
    setDraft((current) =>
      current
        ? {
            ...current,
            variants: current.variants.map((variant, i) => (i === index ? { ...variant, ...next } : variant)),
          }
        : current,
    );
  const emailChoices = (emails ?? []).map((email) => ({ value: String(email.id), label: email.name }));
  const mainSubject = emails?.find((email) => email.id === broadcast.emailId)?.subject;

  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Group gap="xs">
            <IconFlask size={18} aria-hidden />
            <Title order={2} fz="lg">
              A/B test
            </Title>
          </Group>
          {canEdit && (
            <Switch
              label="A/B test"
              checked={draft !== null}
              onChange={(event) => toggle(event.currentTarget.checked)}
            />
          )}
        </Group>
        {canEdit && !draft && (
          <Text size="sm" c="dimmed">
            Try two to four subjects or emails on part of the audience first; the one with more opens or
            clicks then goes to everyone else.
          </Text>
        )}
        {canEdit && draft && (
          <>
            <Stack gap="sm">
              {draft.variants.map((variant, index) => (
                <Paper key={index} withBorder radius="sm" p="sm" data-variant={variant.name}>
                  <Stack gap="xs">
                    <Group justify="space-between" gap="xs">
                      <Text fw={600} size="sm">
                        Variant {variant.name}
                      </Text>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Remove variant ${variant.name}`}
                        disabled={draft.variants.length <= abTestLimits.minVariants}
                        onClick={() =>
                          change({ variants: relettered(draft.variants.filter((_, i) => i !== index)) })
                        }
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Group>
                    <Group align="flex-start" gap="sm" wrap="wrap">
                      <TextInput
                        label={`Subject of variant ${variant.name}`}
                        placeholder={
                          mainSubject ? `The email’s subject: ${mainSubject}` : 'The email’s own subject'
                        }
                        value={variant.subject}
                        onChange={(event) => changeVariant(index, { subject: event.currentTarget.value })}
                        maxLength={abTestLimits.maxSubjectLength}
                        style={{ flex: '2 1 220px' }}
                      />
                      <Select
                        label={`Email of variant ${variant.name}`}
                        placeholder="The broadcast’s email"
                        data={emailChoices}
                        value={variant.emailId === null ? null : String(variant.emailId)}
                        onChange={(value) => changeVariant(index, { emailId: value ? Number(value) : null })}
                        clearable
                        searchable
                        nothingFoundMessage="No email of that name"
                        style={{ flex: '1 1 180px' }}
                      />
                    </Group>
                  </Stack>
                </Paper>
              ))}
              {draft.variants.length < abTestLimits.maxVariants && (
                <Button
                  variant="light"
                  leftSection={<IconPlus size={16} />}
                  w="fit-content"
                  onClick={() =>
                    change({
                      variants: relettered([
                        ...draft.variants,
                        { name: abTestVariantNames[draft.variants.length]!, subject: '', emailId: null },
                      ]),
                    })
                  }
                >
                  Add variant
                </Button>
              )}
            </Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="ab-test-share-label">
                Test share: {draft.testShare}% of the recipients
              </Text>
              <Slider
                min={abTestLimits.minTestShare}
                max={abTestLimits.maxTestShare}
                step={1}
                value={draft.testShare}
                onChange={(testShare) => change({ testShare })}
                thumbLabel="Test share"
                label={(value) => `${value}%`}
                marks={[5, 20, 35, 50].map((value) => ({ value, label: `${value}%` }))}
                mb="md"
              />
            </Stack>
            <Group grow align="flex-start" wrap="wrap" gap="md">
              <Select
                label="Winner by"
                data={abTestMetrics.map((metric) => ({
                  value: metric,
                  label: metric === 'opens' ? 'Most opens' : 'Most clicks',
                }))}
                value={draft.metric}
                onChange={(value) => value && change({ metric: value as AbTestMetric })}
                allowDeselect={false}
                style={{ minWidth: 160 }}
              />
              <NumberInput
                label="Wait (hours)"
                description={`${abTestLimits.minWaitHours} to ${abTestLimits.maxWaitHours}`}
                min={abTestLimits.minWaitHours}
                max={abTestLimits.maxWaitHours}
                allowDecimal={false}
                value={draft.waitHours}
                onChange={(value) =>
                  change({ waitHours: typeof value === 'number' ? value : Number(value) || 0 })
                }
                style={{ minWidth: 160 }}
              />
            </Group>
            <Text size="sm" fw={500} role="status" aria-live="polite" data-testid="ab-test-sentence">
              {abTestSentence({ ...draft, variantCount: draft.variants.length }, recipients)}
            </Text>
            {problem && (
              <Alert
                color="orange"
                variant="light"
                icon={<IconAlertTriangle size={18} />}
                title="Not saved yet"
              >
                {problem}
              </Alert>
            )}
          </>
        )}
        {!canEdit && stored && (
          <>
            <Text size="sm">
              {abTestSentence(
                { ...stored, variantCount: stored.variants.length },
                null,
                broadcast.startedAt !== null,
              )}
            </Text>
            <AbTestResultsTable test={stored} results={results} emails={emails} emailId={broadcast.emailId} />
          </>
        )}
      </Stack>
    </Card>
  );
}
