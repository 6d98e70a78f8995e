import type { EmailDraft } from '@herald/contracts';
import { Code, Group, Paper, ScrollArea, SegmentedControl, Stack, Tabs, Text } from '@mantine/core';
import { IconDeviceDesktop, IconDeviceMobile } from '@tabler/icons-react';
import { useState } from 'react';
import { usePreview } from './emails.api.ts';
import { PersonPicker } from './person-picker.tsx';
import { PreviewFrame } from './preview-frame.tsx';

/** Preview mode: the draft rendered as a person (or sample data) would get it, at desktop or phone width, HTML or text. */
export function PreviewPane({ draft }: { draft: EmailDraft }) {
  const [personId, setPersonId] = useState<number | null>(null);
  const [device, setDevice] = useState<'desktop' | 'mobile'>('desktop');
  const preview = usePreview(draft, personId);
  const rendered = preview.data;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <PersonPicker value={personId} onChange={setPersonId} />
        <SegmentedControl
          aria-label="Preview width"
          value={device}
          onChange={(value) => setDevice(value as 'desktop' | 'mobile')}
          data={[
            {
              value: 'desktop',
              label: (
                <Group gap={6} wrap="nowrap">
                  <IconDeviceDesktop size={16} aria-hidden />
                  Desktop
                </Group>
              ),
            },
            {
              value: 'mobile',
              label: (
                <Group gap={6} wrap="nowrap">
                  <IconDeviceMobile size={16} aria-hidden />
                  Mobile
                </Group>
              ),
            },
          ]}
        />
      </Group>
      <Paper withBorder radius="md" p="sm">
        <Text size="xs" c="dimmed">
          Subject
        </Text>
        <Text fw={600} data-testid="preview-subject">
          {rendered?.subject ?? '…'}
        </Text>
      </Paper>
      <Tabs defaultValue="html" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="html">Email</Tabs.Tab>
          <Tabs.Tab value="text">Plain text</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="html" pt="md">
          <PreviewFrame
            html={rendered?.html}
            width={device === 'mobile' ? 375 : 720}
            height={720}
            title={device === 'mobile' ? 'Email preview, mobile width' : 'Email preview, desktop width'}
            error={preview.error}
          />
        </Tabs.Panel>
        <Tabs.Panel value="text" pt="md">
          <ScrollArea.Autosize mah={720}>
            <Code block style={{ whiteSpace: 'pre-wrap' }}>
              {rendered?.text ?? ''}
            </Code>
          </ScrollArea.Autosize>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
