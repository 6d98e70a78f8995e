import { Avatar, Box, Group, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconQuote } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import classes from './testimonials.module.css';

/** Generic quotes attributed to roles, not to real people or companies. */
export const testimonials = [
  {
    quote:
      'Our welcome sequence now runs on its own, and new sign-ups get the right email at the right moment.',
    role: 'Founder, SaaS company',
  },
  {
    quote: 'Segments by behaviour instead of one big list changed how we talk to our customers.',
    role: 'Marketing lead, eCommerce store',
  },
  {
    quote: 'We set up onboarding flows for three clients in an afternoon, with no engineer involved.',
    role: 'Director, digital agency',
  },
  {
    quote:
      'Tags and custom fields keep our course students organised, so every cohort hears what matters to them.',
    role: 'Program manager, online school',
  },
  {
    quote: 'I finally see which emails bring readers back, and I stopped guessing what to send next.',
    role: 'Independent content creator',
  },
  {
    quote: 'Moving our broadcasts and automations into one place saved us hours every week.',
    role: 'Growth marketer, B2B software',
  },
] as const;

const rotateEveryMs = 9_000;

/** The panel beside each registration step; starts on the step's quote and rotates through all six. */
export function TestimonialPanel({ startAt }: { startAt: number }) {
  const [index, setIndex] = useState(startAt % testimonials.length);

  useEffect(() => setIndex(startAt % testimonials.length), [startAt]);
  useEffect(() => {
    const timer = setInterval(
      () => setIndex((current) => (current + 1) % testimonials.length),
      rotateEveryMs,
    );
    return () => clearInterval(timer);
  }, []);

  return (
    <Stack
      h="100%"
      justify="center"
      p={56}
      style={{
        background:
          'linear-gradient(160deg, var(--mantine-color-indigo-7) 0%, var(--mantine-color-violet-8) 100%)',
        color: 'white',
      }}
      aria-label="What customers say"
    >
      <Box maw={440}>
        <Stack gap="lg" key={index} className={classes.fadeIn}>
          <ThemeIcon size={48} radius="xl" variant="white" color="indigo">
            <IconQuote size={26} />
          </ThemeIcon>
          <Text fz={22} fw={500} lh={1.45}>
            “{testimonials[index]!.quote}”
          </Text>
          <Group gap="sm">
            <Avatar radius="xl" color="indigo" variant="white">
              {testimonials[index]!.role.slice(0, 1)}
            </Avatar>
            <Text fw={500} c="indigo.1">
              {testimonials[index]!.role}
            </Text>
          </Group>
        </Stack>
        <Group gap={6} mt={40} aria-hidden="true">
          {testimonials.map((item, itemIndex) => (
            <Box
              key={item.role}
              w={itemIndex === index ? 22 : 8}
              h={8}
              style={{
                borderRadius: 8,
                background: itemIndex === index ? 'white' : 'rgba(255,255,255,0.4)',
                transition: 'width 200ms ease',
              }}
            />
          ))}
        </Group>
      </Box>
    </Stack>
  );
}
