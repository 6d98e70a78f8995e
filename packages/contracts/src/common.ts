import { z } from 'zod';

/** A numeric id in a route path (`/…/:id`). */
export const IdParams = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
});
