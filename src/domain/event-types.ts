/*
 * The names of the events Herald emits, on their own: the webhook routes validate against them, and the
 * dashboard (web/) offers them, from this one list. Nothing else here, so the dashboard's bundle takes
 * no server code with it.
 */

/** Events Herald emits (spec "Events", and the hosted API's client's since); webhooks subscribe to these names. */
export const EVENT_TYPES = [
  'post.scheduled',
  'post.published',
  'post.failed',
  'post.partial',
  'post.cancelled',
  'post.recycled',
  'post.platform.published',
  'post.platform.failed',
  'post.platform.deleted',
  'post.tiktok.url_resolved',
  'post.external.created',
  'post.external.updated',
  'post.external.deleted',
  'account.connected',
  'account.disconnected',
  'analytics.synced',
  'message.received',
  'conversation.started',
  'conversation.control_changed',
  'message.sent',
  'message.edited',
  'message.deleted',
  'message.delivered',
  'message.read',
  'reaction.received',
  'referral.received',
  'comment.received',
  'review.new',
  'review.updated',
] as const;
