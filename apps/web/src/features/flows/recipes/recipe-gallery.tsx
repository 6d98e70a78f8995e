import { flowMessages, type RecipeSummary } from '@herald/contracts';
import { Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconBolt, IconMail, IconSitemap } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../../lib/notify.ts';
import { ListBody } from '../../../ui/list-page.tsx';
import { useCreateFromRecipe, useRecipes } from './recipes.api.ts';

const categoryColors: Record<RecipeSummary['category'], string> = {
  Onboarding: 'indigo',
  Nurture: 'teal',
  'Re-engagement': 'violet',
  Events: 'green',
  Sales: 'blue',
  Customers: 'orange',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function RecipeCard({
  recipe,
  isCreating,
  isDisabled,
  onUse,
}: {
  recipe: RecipeSummary;
  isCreating: boolean;
  isDisabled: boolean;
  onUse: () => void;
}) {
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      component="article"
      aria-labelledby={`recipe-${recipe.id}`}
      data-testid="recipe-card"
    >
      <Stack gap="xs" h="100%" justify="space-between">
        <Stack gap={6}>
          <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
            <Title order={3} fz="md" id={`recipe-${recipe.id}`}>
              {recipe.name}
            </Title>
            <Badge
              color={categoryColors[recipe.category]}
              variant="light"
              c="dark.7"
              size="sm"
              style={{ flexShrink: 0 }}
            >
              {recipe.category}
            </Badge>
          </Group>
          <Text size="sm">{recipe.description}</Text>
          <Group gap="md" c="dimmed">
            <Group gap={4}>
              <IconSitemap size={14} aria-hidden />
              <Text size="xs">{plural(recipe.stepCount, 'step')}</Text>
            </Group>
            <Group gap={4}>
              <IconMail size={14} aria-hidden />
              <Text size="xs">{plural(recipe.emailCount, 'email')}</Text>
            </Group>
            <Group gap={4}>
              <IconBolt size={14} aria-hidden />
              <Text size="xs">{recipe.trigger}</Text>
            </Group>
          </Group>
          {recipe.toChoose.length > 0 && (
            <Text size="xs" c="orange.9">
              Before switching it on: {recipe.toChoose.join(' ')}
            </Text>
          )}
        </Stack>
        <Button
          variant="light"
          size="xs"
          w="fit-content"
          onClick={onUse}
          loading={isCreating}
          disabled={isDisabled}
          aria-label={`Use this recipe: ${recipe.name}`}
        >
          Use this recipe
        </Button>
      </Stack>
    </Paper>
  );
}

/** The recipe gallery: choosing a recipe creates its flow (off, with draft emails) and opens it. */
export function RecipeGallery({ onCreated }: { onCreated?: () => void }) {
  const list = useRecipes();
  const create = useCreateFromRecipe();
  const navigate = useNavigate();

  const recipes = list.data?.recipes ?? [];
  const use = (recipe: RecipeSummary) =>
    create.mutate(recipe.id, {
      onSuccess: (data) => {
        if (data.message) notifySuccess(data.message);
        onCreated?.();
        void navigate(`/flows/${data.integration.id}`);
      },
      onError: (error) => notifyError(error, flowMessages.createError),
    });

  return (
    <ListBody
      query={list}
      loadingLabel="Loading recipes"
      skeletonHeights={[120, 120, 120]}
      errorTitle="Couldn't load the recipes."
      errorFallback="We couldn't load the recipes."
      isEmpty={recipes.length === 0}
      empty={<Text c="dimmed">No recipes are available.</Text>}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {recipes.map((recipe) => (
          <RecipeCard
            key={recipe.id}
            recipe={recipe}
            isCreating={create.isPending && create.variables === recipe.id}
            isDisabled={create.isPending && create.variables !== recipe.id}
            onUse={() => use(recipe)}
          />
        ))}
      </SimpleGrid>
    </ListBody>
  );
}
