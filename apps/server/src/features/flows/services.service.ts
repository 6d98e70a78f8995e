import { nativeServiceId, operationConfigs, type CatalogueEntry } from '@herald/contracts';
import { catalogue } from '@herald/flow-engine';
import { z } from 'zod';
import { integrationServices } from '../integrations/catalogue.ts';

/** Operations kept for flows made before their successor, not offered for new steps. */
const hiddenOperations = new Set<string>(['/delay']);
/** Steps whose settings need room: the email picker with its preview, the wait editor, the webhook tester. */
const wideDrawers = new Set<string>([
  '/send',
  '/delay-v2',
  '/send-webhook',
  '/check-email-activity',
  '/check-field',
  '/visited-page',
  '/email-notification',
  '/ab-test',
]);

/** The step catalogue: every native operation with its display, set-up needs and the JSON Schema of its settings. */
const steps: CatalogueEntry[] = catalogue.map((item) => {
  const schema = operationConfigs[item.operationKey];
  return {
    display: {
      label: item.label,
      icons: [item.icon],
      size: 'md',
      drawerSize: wideDrawers.has(item.operationKey) ? 'lg' : 'md',
    },
    serviceId: nativeServiceId,
    serviceIdForFiltering: nativeServiceId,
    operationKey: item.operationKey,
    type: item.type,
    // A step whose empty settings fail its schema has to be set up before the flow can run.
    mustConfig: {
      configStep: !schema.safeParse({}).success,
      mapOutputFields: false,
      mayMapOutputFields: false,
    },
    helpDocs: null,
    isHidden: hiddenOperations.has(item.operationKey),
    description: item.description,
    inputSchema: z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>,
  };
});

const services = [
  {
    id: nativeServiceId,
    name: nativeServiceId,
    humanName: 'Herald',
    schema: {},
    kind: 'native' as const,
    category: 'Herald',
    description: 'Herald’s own triggers, actions and filters.',
    howToConnect: ['Always on: every step in the flow editor’s catalogue.'],
    operations: [],
  },
  // Slack and the third-party catalogue (features/integrations/catalogue.ts).
  ...integrationServices.map(
    ({ id, name, humanName, schema, kind, category, description, howToConnect, operations }) => ({
      id,
      name,
      humanName,
      schema,
      kind,
      category,
      description,
      howToConnect,
      operations,
    }),
  ),
];

/** GET /v1/services: the native service and its steps, Slack, and the third-party apps with how to use each. */
export function getServices() {
  return { services, steps };
}
