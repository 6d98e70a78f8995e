import { Card, Table, type MantineSpacing } from '@mantine/core';
import type { ReactNode } from 'react';

interface TableCardProps {
  /** Table.Thead and Table.Tbody. */
  children: ReactNode;
  /** When set, the table scrolls sideways below this width instead of squeezing its columns. */
  minWidth?: number;
  verticalSpacing?: MantineSpacing;
  'aria-label'?: string;
}

/** A list page's table in a bordered card, rows highlighted on hover. */
export function TableCard({
  children,
  minWidth,
  verticalSpacing = 'sm',
  'aria-label': ariaLabel,
}: TableCardProps) {
  const table = (
    <Table verticalSpacing={verticalSpacing} horizontalSpacing="md" highlightOnHover aria-label={ariaLabel}>
      {children}
    </Table>
  );
  return (
    <Card withBorder radius="md" p={0}>
      {minWidth === undefined ? (
        table
      ) : (
        <Table.ScrollContainer minWidth={minWidth}>{table}</Table.ScrollContainer>
      )}
    </Card>
  );
}
