import { normaliseTag, peopleMessages } from '@herald/contracts';
import { Alert, Button, Group, Modal, Stack, Textarea, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useCreateTag, useUpdateTag } from './tags.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

/** The value of the tag-edit query parameter that opens the modal in create mode. */
export const newTagParam = 'new';
export const tagEditParam = 'tag-edit';

/** Normalised while typing: commas dropped, whitespace collapsed, leading spaces trimmed (a trailing one may still be typed). */
function normaliseWhileTyping(raw: string): string {
  return raw.replace(/,/g, '').replace(/\s+/g, ' ').replace(/^\s+/, '');
}

interface TagFormProps {
  current: { tag: string; description: string | null } | null;
  existing: string[];
  onClose: () => void;
}

function TagForm({ current, existing, onClose }: TagFormProps) {
  const isNew = current === null;
  const create = useCreateTag();
  const update = useUpdateTag();
  const [name, setName] = useState(current?.tag ?? '');
  const [description, setDescription] = useState(current?.description ?? '');
  const normalised = normaliseTag(name);
  const isDuplicate =
    normalised.length > 0 &&
    existing.some((t) => t.toLowerCase() === normalised.toLowerCase() && t !== current?.tag);
  const isUnchanged =
    !isNew && normalised === current.tag && description.trim() === (current.description ?? '');
  const isDisabled = normalised.length === 0 || isDuplicate || isUnchanged;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (isDisabled) return;
    const desc = description.trim();
    if (isNew) {
      // Optimistic: the tag is in the list at once; the modal closes and a refusal takes it out again.
      create.mutate(
        { tag: normalised, ...(desc ? { description: desc } : {}) },
        {
          onSuccess: () => notifySuccess(peopleMessages.tagCreated),
          onError: (error) => notifyError(error, peopleMessages.couldNotCreateTag),
        },
      );
      onClose();
      return;
    }
    update.mutate(
      {
        current: current.tag,
        ...(normalised !== current.tag ? { tag: normalised } : {}),
        ...(desc !== (current.description ?? '') ? { description: desc } : {}),
      },
      {
        onSuccess: () => {
          notifySuccess('✅ Tag saved.');
          onClose();
        },
        onError: (error) => notifyError(error, peopleMessages.errorEditingTag),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {!isNew && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
            {peopleMessages.tagEditWarning}
          </Alert>
        )}
        <TextInput
          label="Tag"
          value={name}
          onChange={(event) => setName(normaliseWhileTyping(event.currentTarget.value))}
          onBlur={() => setName(normaliseTag(name))}
          error={isDuplicate ? peopleMessages.tagExists : null}
          maxLength={200}
          required
          data-autofocus
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={1000}
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={isDisabled} loading={update.isPending}>
            {isNew ? 'Create' : 'Save'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

interface TagModalProps {
  param: string | null;
  tags: { tag: string; description: string | null }[] | undefined;
  onClose: () => void;
}

/** The tag popup: ?tag-edit=new creates ('New Tag'), ?tag-edit={tag} edits ('Edit Tag'). */
export function TagModal({ param, tags, onClose }: TagModalProps) {
  const isSmall = useIsNarrow('phone');
  const isNew = param === newTagParam;
  const current = !isNew && param !== null ? (tags?.find((t) => t.tag === param) ?? null) : null;
  const isOpen = param !== null && (isNew || current !== null);
  return (
    <Modal
      opened={isOpen}
      onClose={onClose}
      title={isNew ? 'New Tag' : 'Edit Tag'}
      centered
      fullScreen={isSmall}
    >
      {isOpen && (
        <TagForm key={param} current={current} existing={(tags ?? []).map((t) => t.tag)} onClose={onClose} />
      )}
    </Modal>
  );
}
