import { auditLogMessages } from '@herald/contracts';
import { Button, Group, NumberInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useSetAuditLogRetention } from './audit-log.api.ts';

/** How many months the account keeps its audit log (1 to 120); a daily job deletes older entries. */
export function RetentionSetting({ months }: { months: number | undefined }) {
  const [value, setValue] = useState<number | string>(months ?? 24);
  const save = useSetAuditLogRetention();
  useEffect(() => {
    if (months !== undefined) setValue(months);
  }, [months]);
  const isValid = typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 120;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isValid) return;
    save.mutate(value, {
      onSuccess: () => notifySuccess(auditLogMessages.retentionSaved),
      onError: (error) => notifyError(error, "Couldn't save the retention."),
    });
  };
  return (
    <form onSubmit={onSubmit} aria-label="Retention">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NumberInput
          label="Keep entries for (months)"
          min={1}
          max={120}
          allowDecimal={false}
          value={value}
          onChange={setValue}
          error={isValid ? undefined : 'Between 1 and 120 months.'}
          w={{ base: '100%', xs: 220 }}
        />
        <Button
          type="submit"
          variant="default"
          loading={save.isPending}
          disabled={!isValid || value === months}
        >
          Save
        </Button>
      </Group>
    </form>
  );
}
