import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Paper,
  Progress,
  Stack,
  Table,
  Text,
  ThemeIcon,
  VisuallyHidden,
} from '@mantine/core';
import { IconAlertCircle, IconFileSpreadsheet, IconUpload } from '@tabler/icons-react';
import { useState, type DragEvent } from 'react';
import { useImportWizard } from './import-wizard.tsx';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const rowsLabel = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'row' : 'rows'}`;

/** The upload's state in one line with a bar. */
export function UploadProgress() {
  const { state, retryUpload } = useImportWizard();
  const { upload } = state;
  if (upload.status === 'idle') return null;
  if (upload.status === 'failed')
    return (
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertCircle size={18} />}
        role="alert"
        title="Upload failed"
      >
        <Stack gap="xs">
          <Text size="sm">{upload.error}</Text>
          <Button size="xs" variant="light" color="red" w="fit-content" onClick={retryUpload}>
            Try again
          </Button>
        </Stack>
      </Alert>
    );
  const percent = Math.round(upload.progress * 100);
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={500}>
          {upload.status === 'done' ? 'Uploaded' : 'Uploading…'}
        </Text>
        <Text size="sm" c="dimmed">
          {percent}%
        </Text>
      </Group>
      <Progress
        value={percent}
        color={upload.status === 'done' ? 'teal' : 'indigo'}
        animated={upload.status === 'uploading'}
        aria-label="Upload progress"
      />
    </Stack>
  );
}

function PreviewTable() {
  const { state } = useImportWizard();
  if (!state.preview) return null;
  const { header, rows } = state.preview;
  return (
    <Stack gap={6}>
      <Text size="sm" fw={600}>
        Preview
      </Text>
      <Card withBorder radius="md" p={0}>
        <Table.ScrollContainer minWidth={Math.max(320, header.length * 140)}>
          <Table verticalSpacing={6} horizontalSpacing="sm" fz="sm" striped aria-label="File preview">
            <Table.Thead>
              <Table.Tr>
                {header.map((h, i) => (
                  <Table.Th key={i}>{h || `Column ${i + 1}`}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, r) => (
                <Table.Tr key={r}>
                  {header.map((_h, i) => (
                    <Table.Td
                      key={i}
                      style={{
                        maxWidth: 240,
                        overflow: 'hidden',
                        textOverflow: 'ellipsis',
                        whiteSpace: 'nowrap',
                      }}
                    >
                      {row[i] ?? ''}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </Stack>
  );
}

/** Stage 1: choose the file; it is previewed, counted and uploaded at once. */
export function UploadStage() {
  const { state, chooseFile } = useImportWizard();
  const [isDragging, setIsDragging] = useState(false);
  const { file } = state;

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setIsDragging(false);
    const dropped = event.dataTransfer.files[0];
    if (dropped) chooseFile(dropped);
  };

  return (
    <Stack gap="md">
      <Paper
        component="label"
        withBorder
        radius="md"
        p="xl"
        onDragOver={(e: DragEvent) => {
          e.preventDefault();
          setIsDragging(true);
        }}
        onDragLeave={() => setIsDragging(false)}
        onDrop={onDrop}
        style={{
          cursor: 'pointer',
          borderStyle: 'dashed',
          borderWidth: 2,
          borderColor: isDragging ? 'var(--mantine-color-indigo-5)' : undefined,
          background: isDragging ? 'var(--mantine-color-indigo-light)' : 'var(--mantine-color-gray-0)',
        }}
      >
        <Stack align="center" gap="xs" ta="center">
          <ThemeIcon size={48} radius="xl" variant="light">
            <IconUpload size={24} />
          </ThemeIcon>
          <Text fw={600}>Drop a CSV file here or click to choose one</Text>
          <Text size="sm" c="dimmed">
            The first line must hold the column names. Comma, semicolon and tab separated files work.
          </Text>
          <Button component="span" variant="light" leftSection={<IconFileSpreadsheet size={16} />}>
            Choose file
          </Button>
        </Stack>
        <VisuallyHidden>
          <input
            type="file"
            accept=".csv,text/csv"
            aria-label="CSV file"
            onChange={(e) => {
              chooseFile(e.currentTarget.files?.[0] ?? null);
              e.currentTarget.value = '';
            }}
          />
        </VisuallyHidden>
      </Paper>

      {file && (
        <Card withBorder radius="md" p="md">
          <Stack gap="sm">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                <IconFileSpreadsheet size={20} />
                <Text fw={600} style={{ wordBreak: 'break-all' }}>
                  {file.name}
                </Text>
                <Text size="sm" c="dimmed">
                  {formatBytes(file.size)}
                </Text>
              </Group>
              {state.isCounting ? (
                <Text size="sm" c="dimmed">
                  Counting rows…
                </Text>
              ) : state.rowCount !== null ? (
                <Badge variant="light" size="lg">
                  {rowsLabel(state.rowCount)}
                </Badge>
              ) : null}
            </Group>
            {state.fileError ? (
              <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
                {state.fileError}
              </Alert>
            ) : (
              <UploadProgress />
            )}
          </Stack>
        </Card>
      )}
      {!state.fileError && <PreviewTable />}
    </Stack>
  );
}
