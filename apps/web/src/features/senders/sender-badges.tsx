import type { DnsRecordStatus, SenderAddress, SenderDomain } from '@herald/contracts';
import { Badge } from '@mantine/core';

/** Verified or pending; an address proved by its verified domain says so. */
export function AddressStatusBadge({ address }: { address: SenderAddress }) {
  if (address.status === 'verified') {
    return (
      <Badge variant="light" color="green">
        {address.data.verifiedBy === 'domain' ? 'Verified via domain' : 'Verified'}
      </Badge>
    );
  }
  return (
    <Badge variant="light" color="orange">
      Pending
    </Badge>
  );
}

const domainStatus: Record<SenderDomain['status'], { label: string; color: string }> = {
  verified: { label: 'Verified', color: 'green' },
  pending: { label: 'Pending', color: 'orange' },
  failing: { label: 'Failing', color: 'red' },
};

export function DomainStatusBadge({ status }: { status: SenderDomain['status'] }) {
  const { label, color } = domainStatus[status];
  return (
    <Badge variant="light" color={color}>
      {label}
    </Badge>
  );
}

export const recordStatus: Record<DnsRecordStatus, { label: string; color: string }> = {
  pass: { label: 'Pass', color: 'green' },
  missing: { label: 'Missing', color: 'red' },
  mismatch: { label: 'Mismatch', color: 'red' },
  invalid: { label: 'Invalid', color: 'red' },
  unknown: { label: 'Could not check', color: 'orange' },
  unchecked: { label: 'Not checked yet', color: 'gray' },
};

export function RecordStatusBadge({ status }: { status: DnsRecordStatus }) {
  const { label, color } = recordStatus[status];
  return (
    <Badge variant="light" color={color}>
      {label}
    </Badge>
  );
}
