import { Avatar, type AvatarProps } from '@mantine/core';
import { useState } from 'react';

/** Two capitalised letters of a name: "acme corp" -> "AC", "herald" -> "HE". */
export function initialsOf(name: string | null | undefined): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const letters = words.length > 1 ? `${words[0]![0]}${words[1]![0]}` : words[0]!.slice(0, 2);
  return letters.toUpperCase();
}

interface CompanyLogoProps extends Omit<AvatarProps, 'src' | 'children' | 'name'> {
  companyName: string | null | undefined;
  logo?: string | null;
}

/** The company's logo, else two capitalised letters of its name. */
export function CompanyLogo({ companyName, logo, ...props }: CompanyLogoProps) {
  const [hasFailed, setHasFailed] = useState(false);
  const src = logo && !hasFailed ? logo : null;
  return (
    <Avatar
      radius="sm"
      color="indigo"
      variant="light"
      {...props}
      src={src}
      alt={companyName ?? 'Company logo'}
      imageProps={{ onError: () => setHasFailed(true) }}
    >
      {initialsOf(companyName)}
    </Avatar>
  );
}
