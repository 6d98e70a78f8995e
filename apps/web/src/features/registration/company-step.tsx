import {
  businessTypes,
  estimatedContactsOptions,
  isValidSite,
  messages,
  type Account,
} from '@herald/contracts';

type EstimatedContacts = (typeof estimatedContactsOptions)[number];

function isEstimatedContacts(value: string | null): value is EstimatedContacts {
  return (estimatedContactsOptions as readonly (string | null)[]).includes(value);
}
import { Button, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useStepSave } from './use-step-save.ts';

const otherType = 'Other';

function initialIndustry(industry: string | null): { type: string | null; other: string } {
  if (!industry) return { type: null, other: '' };
  if ((businessTypes as readonly string[]).includes(industry)) return { type: industry, other: '' };
  return { type: otherType, other: industry };
}

export function CompanyStep({ account, onDone }: { account: Account; onDone: (account: Account) => void }) {
  const initial = initialIndustry(account.industry);
  const [site, setSite] = useState(account.site ?? '');
  const [isSiteTouched, setIsSiteTouched] = useState(false);
  const [industryType, setIndustryType] = useState<string | null>(initial.type);
  const [otherIndustry, setOtherIndustry] = useState(initial.other);
  const [estimatedContacts, setEstimatedContacts] = useState<string | null>(
    isEstimatedContacts(account.estimatedContacts) ? account.estimatedContacts : null,
  );
  const [isSubmitted, setIsSubmitted] = useState(false);
  const save = useStepSave(onDone);

  const isSiteOk = isValidSite(site.trim());
  const industry = industryType === otherType ? otherIndustry.trim() : (industryType ?? '');
  const siteError = (isSiteTouched || isSubmitted) && !isSiteOk ? messages.doubleCheckSite : null;
  const industryError = isSubmitted && !industryType ? 'Please choose your industry.' : null;
  const otherError =
    isSubmitted && industryType === otherType && !industry ? 'Please tell us your industry.' : null;
  const contactsError =
    isSubmitted && !estimatedContacts ? 'Please choose how many contacts you have.' : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setIsSubmitted(true);
    if (!isSiteOk || !industry || !isEstimatedContacts(estimatedContacts)) return;
    save.submit({ site: site.trim(), industry, estimatedContacts });
  };

  return (
    <>
      <StepHeading
        title={`${account.name ?? 'Hey'}, tell us about your business.`}
        description="We'll tailor your account to the way you work."
      />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>{save.error}</FormError>
          <TextInput
            label="Site"
            placeholder="yourcompany.com"
            autoComplete="url"
            value={site}
            onChange={(event) => setSite(event.currentTarget.value)}
            onBlur={() => setIsSiteTouched(true)}
            error={siteError}
            autoFocus
          />
          <NativeSelect
            label="Industry"
            data={[{ value: '', label: 'Choose your industry', disabled: true }, ...businessTypes]}
            value={industryType ?? ''}
            onChange={(event) => setIndustryType(event.currentTarget.value || null)}
            error={industryError}
          />
          {industryType === otherType && (
            <TextInput
              label="Your industry"
              placeholder="e.g. Non-profit"
              value={otherIndustry}
              onChange={(event) => setOtherIndustry(event.currentTarget.value)}
              error={otherError}
            />
          )}
          <NativeSelect
            label="Estimated contacts"
            data={[
              { value: '', label: 'How many people will you email?', disabled: true },
              ...estimatedContactsOptions,
            ]}
            value={estimatedContacts ?? ''}
            onChange={(event) => setEstimatedContacts(event.currentTarget.value || null)}
            error={contactsError}
          />
          <Button type="submit" size="md" fullWidth loading={save.isPending}>
            Continue
          </Button>
        </Stack>
      </form>
    </>
  );
}
