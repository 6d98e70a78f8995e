import { Group, Stack, Text, ThemeIcon, UnstyledButton } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { startStages, type StartStage } from './start-stages.ts';

interface StageNavProps {
  activeIndex: number;
  isDone: (stage: StartStage) => boolean;
  isVertical: boolean;
}

/** Stage links showing which actions the account has really completed (not just which come before). */
export function StageNav({ activeIndex, isDone, isVertical }: StageNavProps) {
  const Wrapper = isVertical ? Stack : Group;
  return (
    <Wrapper component="nav" aria-label="Quick start stages" gap={isVertical ? 'xs' : 'lg'}>
      {startStages.map((stage, index) => {
        const isActive = index === activeIndex;
        const done = isDone(stage);
        return (
          <UnstyledButton
            key={stage.id}
            component={Link}
            to={index === 0 ? '/start' : `/start/${stage.id}`}
            aria-current={isActive ? 'step' : undefined}
          >
            <Group gap={8} wrap="nowrap">
              <ThemeIcon
                radius="xl"
                size={28}
                variant={isActive || done ? 'filled' : 'light'}
                color={done ? 'teal' : isActive ? 'indigo' : 'gray'}
              >
                {done ? (
                  <IconCheck size={16} />
                ) : (
                  <Text size="xs" fw={700}>
                    {index + 1}
                  </Text>
                )}
              </ThemeIcon>
              <Text size="sm" fw={isActive ? 700 : 500} c={isActive ? 'dark.8' : 'dimmed'}>
                {stage.label}
              </Text>
            </Group>
          </UnstyledButton>
        );
      })}
    </Wrapper>
  );
}
