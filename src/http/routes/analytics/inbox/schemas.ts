import { Type } from '@sinclair/typebox';

/*
 * The inbox analytics' wire, as @zernio/node 0.2.881 types it (GetInbox*Data / Response).
 */

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const Int = Type.Integer();
const Id = Type.String({ maxLength: 64 });

/** The range and filters every inbox analytics route takes. */
export const InboxRange = {
  fromDate: Type.String({ maxLength: 40, description: 'Inclusive first UTC day (YYYY-MM-DD). Required.' }),
  toDate: Type.Optional(Type.String({ maxLength: 40, description: 'Inclusive last UTC day; default today.' })),
};
export const InboxFilters = {
  ...InboxRange,
  accountId: Type.Optional(Id),
  profileId: Type.Optional(Id),
  platform: Type.Optional(Type.String({ maxLength: 40 })),
};
export const SourceFilter = {
  source: Type.Optional(Type.String({ maxLength: 40, description: 'A lineage source (human, api, platform, ...)' })),
};

const Window = { success: Type.Boolean(), from: Type.String(), to: NullableString };
const Counts = { sent: Int, received: Int, read: Int, failed: Int };

export const VolumeResponse = Type.Object({
  ...Window,
  summary: Type.Object({ received: Int, sent: Int, read: Int, failed: Int, uniqueConversations: Int }),
  timeseries: Type.Array(Type.Object({ date: Type.String(), ...Counts })),
  byPlatform: Type.Array(Type.Object({ platform: Type.String(), ...Counts })),
});

export const HeatmapResponse = Type.Object({
  ...Window,
  buckets: Type.Array(Type.Object({ dow: Int, hour: Int, received: Int, sent: Int, read: Int })),
});

const SourceCounts = { received: Int, sent: Int, read: Int };
export const SourceBreakdownResponse = Type.Object({
  ...Window,
  sources: Type.Array(
    Type.Object({
      source: Type.String(),
      ...SourceCounts,
      byPlatform: Type.Array(Type.Object({ platform: Type.String(), ...SourceCounts })),
    }),
  ),
});

export const ResponseTimeResponse = Type.Object({
  ...Window,
  summary: Type.Object({
    sampleSize: Int,
    medianSeconds: Int,
    p90Seconds: Int,
    p99Seconds: Int,
    meanSeconds: Int,
    fastestSeconds: Int,
    slowestSeconds: Int,
  }),
  histogram: Type.Array(
    Type.Object({ bucket: Type.String(), lowerSeconds: Int, upperSeconds: Type.Union([Int, Type.Null()]), count: Int }),
  ),
});

export const TopAccountsResponse = Type.Object({
  ...Window,
  accounts: Type.Array(
    Type.Object({
      accountId: Type.String(),
      platform: Type.String(),
      displayName: Type.String(),
      username: Type.String(),
      received: Int,
      sent: Int,
      total: Int,
      conversations: Int,
      medianResponseSeconds: Int,
      repliedCount: Int,
    }),
  ),
});

export const ConversationListResponse = Type.Object({
  ...Window,
  items: Type.Array(
    Type.Object({
      conversationId: Type.String(),
      mongoId: NullableString,
      accountId: Type.String(),
      platform: Type.String(),
      participantName: NullableString,
      participantUsername: NullableString,
      participantPicture: NullableString,
      lastMessage: NullableString,
      totalMessages: Int,
      ...Counts,
      firstMessageAt: Type.String(),
      lastMessageAt: Type.String(),
    }),
  ),
  pagination: Type.Object({ page: Int, limit: Int, total: Int, totalPages: Int, hasMore: Type.Boolean() }),
});

export const ConversationResponse = Type.Object({
  success: Type.Boolean(),
  conversationId: Type.String(),
  mongoId: Type.String(),
  platform: NullableString,
  from: Type.String(),
  to: NullableString,
  summary: Type.Object({
    ...Counts,
    totalMessages: Int,
    firstMessageAt: NullableString,
    lastMessageAt: NullableString,
  }),
  timeseries: Type.Array(Type.Object({ date: Type.String(), ...Counts })),
  bySource: Type.Array(Type.Object({ source: Type.String(), count: Int })),
});
