import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { DIRECT_UPLOAD_MAX_BYTES, uploadDirect, type DirectUpload } from '../../../domain/media/upload-direct.js';
import { AppError, invalid } from '../../../errors.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const files = new WeakMap<FastifyRequest, DirectUpload>();

/** The form: the file in `file` (at most 25 MB) and an optional `contentType` that overrides the part's. */
async function readForm(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) throw invalid('file_required', 'Send the file as multipart/form-data in the field file');
  let upload: DirectUpload | null = null;
  let contentType: string | null = null;
  try {
    const parts = request.parts({
      limits: { fileSize: DIRECT_UPLOAD_MAX_BYTES, files: 1, fields: 2, fieldSize: 1024, parts: 3, headerPairs: 50 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file')
          throw invalid(
            'unexpected_file_field',
            `Send the file in the field file, not ${JSON.stringify(part.fieldname)}`,
          );
        upload = { bytes: await part.toBuffer(), filename: part.filename || null, contentType: part.mimetype || null };
      } else if (part.fieldname === 'contentType') contentType = String(part.value);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as FastifyError)?.code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw invalid('file_too_large', `The file is larger than ${DIRECT_UPLOAD_MAX_BYTES} bytes (25 MB)`, {
        maxSize: DIRECT_UPLOAD_MAX_BYTES,
      });
    if (code === 'FST_FILES_LIMIT') throw invalid('too_many_files', 'Send one file, in the field file');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw invalid('too_many_parts', 'The form has too many parts: send file and optionally contentType');
    if (code === 'FST_PROTO_VIOLATION')
      throw invalid('forbidden_field_name', 'A form field is named __proto__ or constructor');
    throw invalid(
      'invalid_multipart',
      `The multipart body cannot be read: ${(error as Error)?.message ?? 'malformed'}`,
    );
  }
  if (!upload) throw invalid('file_required', 'The form has no file: send it in the field file');
  files.set(request, contentType ? { ...upload, contentType } : upload);
}

export default function uploadMediaDirectRoute(app: App, ctx: AppContext) {
  // Its own scope: multipart is parsed for this route only.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true });
    scope.post(
      '/media/upload-direct',
      {
        preValidation: readForm,
        schema: {
          tags: ['Media'],
          summary: 'Upload one file (multipart field file, at most 25 MB) with the API key; answers its public URL',
          response: {
            200: Type.Object({
              url: Type.String({ description: 'Public URL: a media item url or an inbox attachmentUrl' }),
              filename: Type.String(),
              contentType: Type.String(),
              size: Type.Integer(),
            }),
            ...errorResponses(400, 401, 403),
          },
        },
      },
      async (request) => {
        const upload = files.get(request);
        if (!upload) throw invalid('file_required', 'The form has no file: send it in the field file');
        return uploadDirect(ctx, request.principal, upload);
      },
    );
  });
}
