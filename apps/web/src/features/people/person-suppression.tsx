import {
  suppressesTransactional,
  suppressionReasonLabels,
  type Person,
  type SuppressionReason,
} from '@herald/contracts';
import { Alert, Anchor, Text } from '@mantine/core';
import { IconMailOff } from '@tabler/icons-react';
import { Link } from 'react-router';

const isReason = (reason: string | null): reason is SuppressionReason =>
  reason !== null && reason in suppressionReasonLabels;

/** Says why a person gets no marketing email, with a link to their entry on the suppression list. */
export function PersonSuppression({ person }: { person: Person }) {
  if (!person.unsubscribed) return null;
  const reason = person.unsubscribeReason;
  const label = isReason(reason)
    ? suppressionReasonLabels[reason]
    : reason || suppressionReasonLabels.unsubscribed;
  const stopsAll = isReason(reason) && suppressesTransactional[reason];
  return (
    <Alert variant="light" color="orange" icon={<IconMailOff size={18} />} title={`Suppressed: ${label}`}>
      <Text size="sm">
        {stopsAll
          ? 'Herald sends this person no email at all.'
          : 'Herald sends this person no marketing email.'}{' '}
        {person.email && (
          <Anchor
            component={Link}
            to={`/settings/email/suppressions?search=${encodeURIComponent(person.email)}`}
            size="sm"
          >
            See it on the suppression list
          </Anchor>
        )}
      </Text>
    </Alert>
  );
}
