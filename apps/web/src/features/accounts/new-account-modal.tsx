import { businessTypes, isValidSite, messages, teamMessages } from '@herald/contracts';
import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useCreateSubaccount } from './accounts.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

function NewAccountForm({ onClose }: { onClose: () => void }) {
  const create = useCreateSubaccount();
  const [name, setName] = useState('');
  const [site, setSite] = useState('');
  const [industry, setIndustry] = useState<string | null>(null);
  const [isSiteTouched, setIsSiteTouched] = useState(false);
  const [isSubmitted, setIsSubmitted] = useState(false);

  const trimmedSite = site.trim();
  const isSiteOk = trimmedSite === '' || isValidSite(trimmedSite);
  const nameError = isSubmitted && !name.trim() ? 'Name is required.' : null;
  const siteError = (isSiteTouched || isSubmitted) && !isSiteOk ? messages.doubleCheckSite : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setIsSubmitted(true);
    if (!name.trim() || !isSiteOk || create.isPending) return;
    create.mutate(
      { name: name.trim(), site: trimmedSite || undefined, industry: industry ?? undefined },
      {
        onSuccess: () => {
          notifySuccess(teamMessages.accountCreated);
          onClose();
        },
        onError: (error) => notifyError(error, teamMessages.errorCreatingAccount),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Name"
          placeholder="Acme Inc."
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
          maxLength={200}
          data-autofocus
        />
        <TextInput
          label="Site"
          placeholder="acme.com"
          value={site}
          onChange={(event) => setSite(event.currentTarget.value)}
          onBlur={() => setIsSiteTouched(true)}
          error={siteError}
        />
        <Select
          label="Industry"
          placeholder="Choose an industry"
          data={[...businessTypes]}
          value={industry}
          onChange={setIndustry}
          clearable
          comboboxProps={{ withinPortal: true }}
        />
        <Group justify="flex-end" gap="sm" mt="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** 'New account': a sub-account with a name, site and industry. */
export function NewAccountModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const isSmall = useIsNarrow('phone');
  return (
    <Modal opened={opened} onClose={onClose} title="New account" fullScreen={isSmall} centered>
      <NewAccountForm onClose={onClose} />
    </Modal>
  );
}
