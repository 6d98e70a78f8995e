import {
  completeScopes,
  scopeDefaults,
  scopeIds,
  ssoMessages,
  type SaveSsoBody,
  type ScopeState,
  type SsoSettingsResponse,
} from '@herald/contracts';
import {
  Alert,
  Button,
  Group,
  PasswordInput,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { ReadOnlyField, Section } from '../account/account-section.tsx';
import { ScopeCheckboxes } from '../team/team-member-modal.tsx';
import { useDeleteSso, useSaveSso, useSsoSettings } from './sso.api.ts';

const description =
  'Team members sign in through your identity provider (Google Workspace, Microsoft Entra ID, Okta, Keycloak or any OpenID Connect provider). People with an email in your domains join the team at their first sign-in.';

/** The account page's single sign-on settings (account:write, main account only). */
export function SsoSection() {
  const settings = useSsoSettings(true);
  const [isEditing, setIsEditing] = useState(false);

  return (
    <Section title="Single sign-on" description={description}>
      {settings.isPending ? (
        <LoadingSpinner label="Loading the single sign-on settings" />
      ) : settings.isError ? (
        <LoadError
          message={errorMessage(settings.error, ssoMessages.couldNotLoad)}
          onRetry={() => void settings.refetch()}
        />
      ) : settings.data.connection && !isEditing ? (
        <SsoSummary settings={settings.data} onEdit={() => setIsEditing(true)} />
      ) : isEditing || settings.data.connection ? (
        <SsoForm settings={settings.data} onDone={() => setIsEditing(false)} />
      ) : (
        <Stack gap="sm" align="flex-start">
          <Text size="sm">Single sign-on is not set up. Members sign in with their email and password.</Text>
          <Button variant="light" onClick={() => setIsEditing(true)}>
            Set up single sign-on
          </Button>
        </Stack>
      )}
    </Section>
  );
}

function SsoSummary({ settings, onEdit }: { settings: SsoSettingsResponse; onEdit: () => void }) {
  const connection = settings.connection!;
  const remove = useDeleteSso();
  const confirmRemove = () =>
    modals.openConfirmModal({
      title: 'Remove single sign-on?',
      children: (
        <Text size="sm">
          Members sign in with a password again (those created by single sign-on set one with “Forgot
          password?”). Nobody is removed from the team.
        </Text>
      ),
      labels: { confirm: 'Remove', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(undefined, {
          onSuccess: () => notifySuccess(ssoMessages.removed),
          onError: (error) => notifyError(error, "Couldn't remove single sign-on."),
        }),
    });
  return (
    <Stack gap="md">
      <ReadOnlyField label="Issuer" value={connection.issuer} />
      <ReadOnlyField label="Client ID" value={connection.clientId} />
      <ReadOnlyField label="Email domains" value={connection.domains.join(', ')} />
      <ReadOnlyField
        label="Password sign-in"
        value={
          connection.requireSso
            ? 'Off for these domains (the account owner keeps it)'
            : 'Still allowed alongside single sign-on'
        }
      />
      <ReadOnlyField label="Redirect URI" value={settings.redirectUri} copy={settings.redirectUri} />
      <Group gap="sm">
        <Button variant="light" onClick={onEdit}>
          Change single sign-on
        </Button>
        <Button variant="subtle" color="red" onClick={confirmRemove} loading={remove.isPending}>
          Remove
        </Button>
      </Group>
    </Stack>
  );
}

const initialScopes = (): ScopeState[] => scopeIds.map((id) => ({ id, enabled: scopeDefaults[id] }));

function SsoForm({ settings, onDone }: { settings: SsoSettingsResponse; onDone: () => void }) {
  const existing = settings.connection;
  const save = useSaveSso();
  const [issuer, setIssuer] = useState(existing?.issuer ?? '');
  const [clientId, setClientId] = useState(existing?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState<string[]>(existing?.domains ?? []);
  const [requireSso, setRequireSso] = useState(existing?.requireSso ?? false);
  const [scopes, setScopes] = useState<ScopeState[]>(
    existing ? completeScopes(existing.defaultScopes) : initialScopes(),
  );
  const [formError, setFormError] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const body: SaveSsoBody = {
      issuer: issuer.trim(),
      clientId: clientId.trim(),
      domains: domains.map((domain) => domain.trim().toLowerCase()).filter(Boolean),
      defaultScopes: scopes,
      requireSso,
      ...(clientSecret ? { clientSecret } : {}),
    };
    save.mutate(body, {
      onSuccess: () => {
        notifySuccess(ssoMessages.saved);
        onDone();
      },
      onError: (error) =>
        setFormError(isApiError(error) ? error.message : errorMessage(error, "Couldn't save.")),
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Single sign-on settings">
      <Stack gap="md">
        {formError && (
          <Alert color="red" variant="light" role="alert">
            {formError}
          </Alert>
        )}
        <Alert variant="light" color="gray" icon={<IconInfoCircle size={18} />}>
          <Text size="sm">
            Register Herald at your provider as a web application with this redirect URI, then copy its
            issuer, client ID and secret here.
          </Text>
        </Alert>
        <ReadOnlyField label="Redirect URI" value={settings.redirectUri} copy={settings.redirectUri} />
        <TextInput
          label="Issuer URL"
          description="For example https://login.microsoftonline.com/<tenant>/v2.0 or https://accounts.google.com"
          value={issuer}
          onChange={(event) => setIssuer(event.currentTarget.value)}
          required
        />
        <TextInput
          label="Client ID"
          value={clientId}
          onChange={(event) => setClientId(event.currentTarget.value)}
          required
        />
        <PasswordInput
          label="Client secret"
          description={existing ? 'Stored sealed. Leave empty to keep it.' : undefined}
          value={clientSecret}
          onChange={(event) => setClientSecret(event.currentTarget.value)}
          required={!existing}
          autoComplete="off"
        />
        <TagsInput
          label="Email domains"
          description="People whose email is in one of these domains sign in here. Press Enter after each."
          value={domains}
          onChange={setDomains}
          splitChars={[',', ' ']}
          required
        />
        <Switch
          label="Require single sign-on"
          description="Password sign-in is off for people in these domains. You, the owner, keep it as a way back in."
          checked={requireSso}
          onChange={(event) => setRequireSso(event.currentTarget.checked)}
        />
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            Permissions of new members
          </Text>
          <Text size="sm" c="dimmed">
            Given to people who join the team at their first single sign-on. Change them later on the team
            page.
          </Text>
        </Stack>
        <ScopeCheckboxes scopes={scopes} disabled={save.isPending} onChange={setScopes} />
        <Group gap="sm">
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
          <Button variant="default" onClick={onDone} disabled={save.isPending}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
