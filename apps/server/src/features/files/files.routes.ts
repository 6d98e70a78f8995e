import { z } from 'zod';
import { AppError, badRequest, notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { TooLargeError } from '../../lib/storage.ts';
import { Readable } from 'node:stream';

const KeyParams = z.object({ '*': z.string().min(1).max(500) });
const UploadQuery = z.object({
  expires: z.string().max(20).optional(),
  type: z.string().max(100).optional(),
  max: z.string().max(20).optional(),
  sig: z.string().max(200).optional(),
});

/** Uploads to signed URLs (no cookie; the signature is the permission) and reading stored files back. */
export const filesRoutes = [
  route({
    method: 'PUT',
    url: '/v1/uploads/*',
    auth: 'public',
    csrf: false,
    tenant: false,
    summary: 'Upload a file to a signed upload URL',
    params: KeyParams,
    query: UploadQuery,
    handler: async ({ services, params, query, request }) => {
      const body = request.body;
      if (!(body instanceof Readable)) throw badRequest('Send the file itself as the request body.');
      const declared = Number(request.headers['content-length'] ?? 1);
      const problem = services.storage.checkUpload(
        query,
        params['*'],
        request.headers['content-type'],
        Number.isFinite(declared) ? declared : 1,
      );
      if (problem)
        throw new AppError(
          problem.includes('too large') || problem.includes('empty') ? 'BadRequestError' : 'ForbiddenError',
          problem,
        );
      try {
        const size = await services.storage.writeStream(params['*'], query.type!, body, Number(query.max));
        if (size === 0) throw badRequest('The file is empty.');
      } catch (error) {
        if (error instanceof TooLargeError) throw badRequest(error.message);
        throw error;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/files/*',
    auth: 'public',
    tenant: false,
    summary: 'A stored public file (logos)',
    params: KeyParams,
    handler: async ({ services, params, reply }) => {
      const file = await services.storage.read(params['*']);
      if (!file) throw notFound('No such file.');
      // Served as an inert image: no sniffing, no scripts, whatever the bytes are.
      await reply
        .type(file.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(file.data);
    },
  }),
];
