import {
  categoryTypes,
  sendingMessages,
  type CategoryType,
  type CommunicationCategory,
} from '@herald/contracts';
import {
  Alert,
  Badge,
  Button,
  Divider,
  Group,
  Modal,
  SegmentedControl,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconArchive, IconArchiveOff, IconStar } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useCreateCategory, useUpdateCategory, type CategoryChanges } from './categories.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

/** The query parameter that opens the popup: `?communication-category=new` or `?communication-category={id}`. */
export const categoryParam = 'communication-category';
export const newCategoryParam = 'new';

export const categoryTypeLabels: Record<CategoryType, string> = {
  marketing: 'Marketing',
  transactional: 'Transactional',
};
const categoryTypeHelp: Record<CategoryType, string> = {
  marketing: 'People can opt out of it in their preference centre.',
  transactional: 'Always sent (receipts, password resets): people cannot opt out.',
};

interface CategoryFormProps {
  category: CommunicationCategory | null;
  names: string[];
  canWrite: boolean;
  onClose: () => void;
}

function CategoryForm({ category, names, canWrite, onClose }: CategoryFormProps) {
  const isNew = category === null;
  const create = useCreateCategory();
  const update = useUpdateCategory();
  const [name, setName] = useState(category?.name ?? '');
  const [description, setDescription] = useState(category?.description ?? '');
  const [type, setType] = useState<CategoryType>(category?.type ?? 'marketing');
  const [isSubmitted, setIsSubmitted] = useState(false);
  const trimmed = name.trim();
  const isTaken =
    trimmed.length > 0 &&
    names.some((other) => other.toLowerCase() === trimmed.toLowerCase() && other !== category?.name);
  const nameError = isTaken
    ? sendingMessages.categoryNameTaken
    : isSubmitted && !trimmed
      ? sendingMessages.categoryNameNeeded
      : null;
  const isUnchanged = !isNew && trimmed === category.name && description.trim() === category.description;

  const change = (changes: CategoryChanges, then?: () => void) => {
    if (!category) return;
    update.mutate(
      { id: category.id, changes },
      {
        onSuccess: (result) => {
          notifySuccess(result.message || sendingMessages.categoryUpdated);
          then?.();
        },
        onError: (error) => notifyError(error, sendingMessages.categorySaveError),
      },
    );
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setIsSubmitted(true);
    if (!canWrite || !trimmed || isTaken) return;
    if (isNew) {
      create.mutate(
        { name: trimmed, description: description.trim(), type },
        {
          onSuccess: () => {
            notifySuccess(sendingMessages.categoryCreated);
            onClose();
          },
          onError: (error) => notifyError(error, sendingMessages.categorySaveError),
        },
      );
      return;
    }
    if (isUnchanged) return onClose();
    change({ name: trimmed, description: description.trim() }, onClose);
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
          maxLength={100}
          required
          readOnly={!canWrite}
          data-autofocus
        />
        <Textarea
          label="Description"
          description="Recipients see it in their preference centre."
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={500}
          readOnly={!canWrite}
        />
        {isNew ? (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="category-type-label">
              Type
            </Text>
            <SegmentedControl
              aria-labelledby="category-type-label"
              value={type}
              onChange={(value) => setType(value as CategoryType)}
              data={categoryTypes.map((value) => ({ value, label: categoryTypeLabels[value] }))}
            />
            <Text size="xs" c="dimmed">
              {categoryTypeHelp[type]}
            </Text>
          </Stack>
        ) : (
          <Group gap="xs">
            <Badge variant="light" color={category.type === 'marketing' ? 'indigo' : 'gray'}>
              {categoryTypeLabels[category.type]}
            </Badge>
            {category.isDefault && (
              <Badge variant="light" color="teal">
                Default
              </Badge>
            )}
            {category.isArchived && (
              <Badge variant="light" color="gray">
                Archived
              </Badge>
            )}
          </Group>
        )}
        {!isNew && canWrite && (
          <>
            <Divider />
            <Stack gap="xs">
              {category.isDefault ? (
                <Text size="sm" c="dimmed">
                  Emails without a category of their own are filed under this one. To archive it, make another
                  category the default first.
                </Text>
              ) : (
                <Group gap="xs" wrap="wrap">
                  {!category.isArchived && (
                    <Button
                      variant="light"
                      leftSection={<IconStar size={16} />}
                      onClick={() => change({ isDefault: true })}
                      loading={update.isPending && update.variables?.changes.isDefault === true}
                    >
                      Make default
                    </Button>
                  )}
                  <Button
                    variant="default"
                    leftSection={
                      category.isArchived ? <IconArchiveOff size={16} /> : <IconArchive size={16} />
                    }
                    onClick={() => change({ isArchived: !category.isArchived }, onClose)}
                    loading={update.isPending && update.variables?.changes.isArchived !== undefined}
                  >
                    {category.isArchived ? 'Unarchive' : 'Archive'}
                  </Button>
                </Group>
              )}
            </Stack>
          </>
        )}
        {!canWrite && (
          <Alert variant="light" color="gray">
            Changing categories needs the “Email settings” permission.
          </Alert>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            {canWrite ? 'Cancel' : 'Close'}
          </Button>
          {canWrite && (
            <Button
              type="submit"
              loading={create.isPending || (update.isPending && update.variables?.changes.name !== undefined)}
              disabled={isTaken}
            >
              {isNew ? 'Create' : 'Save'}
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

interface CategoryModalProps {
  param: string | null;
  categories: CommunicationCategory[] | undefined;
  canWrite: boolean;
  onClose: () => void;
}

/** The category popup: `new` creates ('New Category'), an id edits ('Edit Category'). */
export function CategoryModal({ param, categories, canWrite, onClose }: CategoryModalProps) {
  const isSmall = useIsNarrow('phone');
  const isNew = param === newCategoryParam && canWrite;
  const current = param !== null && !isNew ? (categories?.find((c) => String(c.id) === param) ?? null) : null;
  const isOpen = isNew || current !== null;
  return (
    <Modal
      opened={isOpen}
      onClose={onClose}
      title={isNew ? 'New Category' : canWrite ? 'Edit Category' : 'Category'}
      centered
      fullScreen={isSmall}
    >
      {isOpen && (
        <CategoryForm
          key={param}
          category={current}
          names={(categories ?? []).map((c) => c.name)}
          canWrite={canWrite}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}
