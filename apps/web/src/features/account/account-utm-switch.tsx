import { messages, Account, type UpdateAccountBody } from '@herald/contracts';
import { Switch } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { accountKey } from './account.api.ts';

const utmFailure = "Couldn't save Automatic UTM tagging settings.";

/** The account page's Links section: whether links in emails get UTM tags, saved as soon as it is switched. */
export function AccountUtmSwitch({ account, canWrite }: { account: Account; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [isSaving, setIsSaving] = useState(false);

  // Applied locally first, then saved; put back if the save fails (docs/team-and-accounts.md).
  const onChange = async (linkUTMs: boolean) => {
    const previous = queryClient.getQueryData<Account>(accountKey);
    if (previous) queryClient.setQueryData<Account>(accountKey, { ...previous, linkUTMs });
    setIsSaving(true);
    try {
      const saved = await api.patch('/accounts/me', { linkUTMs } satisfies UpdateAccountBody, {
        schema: Account,
      });
      queryClient.setQueryData<Account>(accountKey, saved);
      notifySuccess(messages.settingsSaved);
    } catch (error) {
      const current = queryClient.getQueryData<Account>(accountKey);
      if (current) queryClient.setQueryData<Account>(accountKey, { ...current, linkUTMs: !linkUTMs });
      notifyError(error, utmFailure);
    } finally {
      setIsSaving(false);
    }
  };

  return (
    <Switch
      label="Automatic UTM tagging"
      description="Add utm_source, utm_medium and utm_campaign to the links in your emails so your analytics tool can tell where visits came from."
      checked={account.linkUTMs}
      disabled={!canWrite || isSaving}
      onChange={(event) => void onChange(event.currentTarget.checked)}
    />
  );
}
