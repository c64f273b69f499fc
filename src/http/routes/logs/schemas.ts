import { Type } from '@sinclair/typebox';
import { PLATFORMS } from '../../../platforms/catalogue.js';
import { DateTime, Nullable } from '../../schemas/common.js';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const LOG_STATUSES = ['success', 'failed', 'pending', 'skipped'] as const;
const LOG_ACTIONS = [
  'publish',
  'retry',
  'media_upload',
  'rate_limit_pause',
  'token_refresh',
  'cancelled',
  'edit',
] as const;

/** Largest `skip` of the log lists. */
export const MAX_SKIP = 1_000_000;

/** Filters of GET /v1/logs (spec "Publishing logs"); `all` means no filter. */
export const LogFilters = {
  status: Type.Optional(literals([...LOG_STATUSES, 'all'])),
  platform: Type.Optional(literals([...PLATFORMS, 'all'])),
  action: Type.Optional(literals([...LOG_ACTIONS, 'all'])),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, default: 7, description: 'How many days back (max 7)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  // NOTE: bounded like posts' page x limit: an unbounded skip (1e20, Infinity) reached the database as a
  // number no integer column takes (a 500).
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0 })),
  accountId: Type.Optional(Type.String({ maxLength: 64 })),
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'Text in the content preview, account username or endpoint' }),
  ),
};

const LogRequest = Type.Object({
  contentPreview: Type.Optional(Nullable(Type.String())),
  mediaCount: Type.Optional(Type.Integer()),
  mediaTypes: Type.Optional(Type.Array(Type.String())),
  mediaUrls: Type.Optional(Type.Array(Type.String())),
  scheduledFor: Type.Optional(Nullable(Type.String())),
  rawBody: Type.Optional(Nullable(Type.String())),
});

const LogResponse = Type.Object({
  platformPostId: Type.Optional(Nullable(Type.String())),
  platformPostUrl: Type.Optional(Nullable(Type.String())),
  errorMessage: Type.Optional(Nullable(Type.String())),
  errorCode: Type.Optional(Nullable(Type.String())),
  rawBody: Type.Optional(Nullable(Type.String())),
});

const logFields = {
  _id: Type.String(),
  userId: Type.String(),
  profileId: Type.String(),
  accountUsername: Nullable(Type.String()),
  platform: Type.String(),
  action: Type.String(),
  status: Type.String(),
  statusCode: Nullable(Type.Integer()),
  endpoint: Nullable(Type.String()),
  request: LogRequest,
  response: LogResponse,
  durationMs: Type.Integer(),
  attemptNumber: Type.Integer(),
  createdAt: DateTime,
};

export const PostLog = Type.Object(
  { ...logFields, postId: Type.String(), accountId: Type.String() },
  { $id: 'PostLog' },
);

export const PostLogDetail = Type.Object(
  {
    ...logFields,
    postId: Type.Union([
      Type.String(),
      Type.Object({
        _id: Type.String(),
        content: Type.String(),
        status: Type.String(),
        scheduledFor: Nullable(Type.String()),
        platforms: Type.Array(
          Type.Object({
            platform: Type.String(),
            accountId: Type.String(),
            status: Type.String(),
            platformPostId: Nullable(Type.String()),
            platformPostUrl: Nullable(Type.String()),
            errorMessage: Nullable(Type.String()),
            errorCategory: Nullable(Type.String()),
          }),
        ),
        mediaItems: Type.Array(Type.Unknown()),
      }),
    ]),
    accountId: Type.Union([
      Type.String(),
      Type.Object({ _id: Type.String(), platform: Type.String(), username: Type.String(), displayName: Type.String() }),
    ]),
    metadata: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'PostLogDetail' },
);

export const LogPage = Type.Object({
  logs: Type.Array(PostLog),
  pagination: Type.Object({
    total: Type.Integer(),
    limit: Type.Integer(),
    skip: Type.Integer(),
    pages: Type.Integer(),
    hasMore: Type.Boolean(),
  }),
});
