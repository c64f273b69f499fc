import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { invalidFields } from '../../../errors.js';
import { bulkUploadPosts } from '../../../domain/posts/bulk/bulk-upload.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { csvUploadScope, readCsvUpload } from '../../csv-upload.js';
import { errorResponses } from '../../schemas/common.js';
import { bodyChecker } from '../../validation.js';
import { Post, PostBody } from './schemas.js';

const Flag = Type.Union([Type.Literal('true'), Type.Literal('false')]);

const BulkResult = Type.Object({
  success: Type.Boolean({ description: 'true when every row was created (or, in a dry run, would be)' }),
  totalRows: Type.Integer(),
  created: Type.Integer({ description: 'rows created; in a dry run, rows that would be' }),
  failed: Type.Integer(),
  errors: Type.Array(
    Type.Object({
      row: Type.Integer({ description: 'data row, 1-based, header excluded' }),
      error: Type.String(),
      code: Type.String(),
    }),
  ),
  posts: Type.Array(Post, { description: 'the created posts in row order; empty in a dry run' }),
  dryRun: Type.Boolean(),
});

/** POST /v1/posts/bulk-upload: a CSV of posts, each row through the path of POST /v1/posts (docs/posts.md, "Bulk upload"). */
export default function bulkUploadPostsRoute(app: App, ctx: AppContext) {
  const checkPost = bodyChecker(PostBody);
  void app.register(async (scope) => {
    await csvUploadScope(scope as App);
    (scope as App).post(
      '/posts/bulk-upload',
      {
        preValidation: readCsvUpload,
        schema: {
          tags: ['Posts'],
          summary:
            'Create up to 5,000 posts from a CSV (multipart field `file`); dryRun checks every row and stores nothing',
          description:
            '200 when every row succeeded or every row failed, 207 when some did. A row is all or nothing. Accepts an Idempotency-Key header.',
          consumes: ['multipart/form-data'],
          querystring: Type.Object({
            dryRun: Type.Optional(Type.Boolean({ description: 'default false; may also be sent as a form field' })),
          }),
          body: Type.Object(
            { file: Type.String({ format: 'binary' }), dryRun: Type.Optional(Flag) },
            { additionalProperties: false },
          ),
          response: { 200: BulkResult, 207: BulkResult, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        const form = request.body.dryRun;
        if (form !== undefined && request.query.dryRun !== undefined && (form === 'true') !== request.query.dryRun) {
          throw invalidFields('dryRun differs between the query and the form', {
            dryRun: ['the query and the form field disagree'],
          });
        }
        const dryRun = request.query.dryRun ?? form === 'true';
        const result = await bulkUploadPosts(ctx, request.principal, { csv: request.body.file, dryRun }, checkPost);
        const partial = result.created > 0 && result.failed > 0;
        return reply
          .status(partial ? 207 : 200)
          .send({ ...result, success: result.failed === 0, posts: result.posts.map(presentPost) });
      },
    );
  });
}
