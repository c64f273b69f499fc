import { Type } from '@sinclair/typebox';

/* Shapes of /v1/comment-automations (@zernio/node 0.2.881: createCommentAutomation and its siblings). */

const Keyword = Type.String({ minLength: 1, maxLength: 100 });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const MatchMode = Type.Union([Type.Literal('exact'), Type.Literal('contains'), Type.Literal('word')]);
const Trigger = Type.Union([Type.Literal('comment'), Type.Literal('story_reply')]);
/** Parts Herald takes in the shape the client sends and refuses (unsupported_feature) when used. */
const Loose = Type.Object({}, { additionalProperties: true });

/** The settings create and update share. */
const Settings = {
  trigger: Type.Optional(Trigger),
  keywords: Type.Optional(Type.Array(Keyword, { maxItems: 50 })),
  matchMode: Type.Optional(MatchMode),
  excludeKeywords: Type.Optional(Type.Array(Keyword, { maxItems: 50 })),
  typoTolerance: Type.Optional(Type.Boolean()),
  dmMessage: Type.Optional(Text(1000)),
  buttons: Type.Optional(Type.Array(Loose, { maxItems: 3 })),
  template: Type.Optional(Type.Union([Loose, Type.Null()])),
  commentReply: Type.Optional(Type.String({ maxLength: 1000 })),
  dmMessageVariations: Type.Optional(Type.Array(Text(1000), { maxItems: 5 })),
  commentReplyVariations: Type.Optional(Type.Array(Text(1000), { maxItems: 5 })),
  linkTracking: Type.Optional(Type.Boolean()),
  clickTag: Type.Optional(Type.String({ maxLength: 100 })),
  dmDelaySeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  commentReplyDelaySeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  alsoMatchInDms: Type.Optional(Type.Boolean()),
  audience: Type.Optional(Loose),
  followGate: Type.Optional(Loose),
};

export const CreateBody = Type.Object({
  profileId: Type.String({ minLength: 1, maxLength: 64 }),
  accountId: Type.String({ minLength: 1, maxLength: 64 }),
  platformPostId: Type.Optional(Text(512)),
  postId: Type.Optional(Text(64)),
  postTitle: Type.Optional(Type.String({ maxLength: 500 })),
  name: Text(200),
  ...Settings,
  dmMessage: Text(1000),
});

export const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  ...Settings,
  isActive: Type.Optional(Type.Boolean()),
});

const Stats = Type.Object({
  totalTriggered: Type.Integer(),
  totalSent: Type.Integer(),
  totalFailed: Type.Integer(),
});

const SettingsOut = {
  keywords: Type.Array(Type.String()),
  matchMode: MatchMode,
  excludeKeywords: Type.Array(Type.String()),
  typoTolerance: Type.Boolean(),
  dmMessage: Type.String(),
  commentReply: Type.Optional(Type.String()),
  dmMessageVariations: Type.Optional(Type.Array(Type.String())),
  commentReplyVariations: Type.Optional(Type.Array(Type.String())),
  linkTracking: Type.Boolean(),
  clickTag: Type.Optional(Type.String()),
  dmDelaySeconds: Type.Optional(Type.Integer()),
  commentReplyDelaySeconds: Type.Optional(Type.Integer()),
  alsoMatchInDms: Type.Boolean(),
  isActive: Type.Boolean(),
};

export const Automation = Type.Object({
  id: Type.String(),
  name: Type.String(),
  platform: Type.String(),
  trigger: Trigger,
  accountId: Type.String(),
  platformPostId: Type.Optional(Type.String()),
  postId: Type.Optional(Type.String()),
  postTitle: Type.Optional(Type.String()),
  ...SettingsOut,
  stats: Stats,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ListedAutomation = Type.Object({
  ...Automation.properties,
  stats: Type.Object({ triggered: Type.Integer(), dmsSent: Type.Integer(), dmsFailed: Type.Integer() }),
});

export const UpdatedAutomation = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ...SettingsOut,
  updatedAt: Type.String(),
});

export const LogStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('sent'),
  Type.Literal('failed'),
  Type.Literal('skipped'),
  Type.Literal('gated'),
]);

export const AutomationLog = Type.Object({
  id: Type.String(),
  commentId: Type.String(),
  commenterId: Type.Optional(Type.String()),
  commenterName: Type.Optional(Type.String()),
  commentText: Type.String(),
  source: Type.String(),
  status: LogStatus,
  error: Type.Optional(Type.String()),
  commentReplyStatus: Type.Optional(Type.String()),
  commentReplyError: Type.Optional(Type.String()),
  nextDueAt: Type.Optional(Type.String()),
  createdAt: Type.String(),
});

export const AutomationParams = Type.Object({ automationId: Type.String({ minLength: 1, maxLength: 64 }) });
