import { invalid, invalidFields } from '../../errors.js';
import type { InboxAttachment, MessageFeatures, OutgoingMessage } from '../../platforms/types.js';
import { platformLimitation } from './access.js';

/** The body of POST /v1/inbox/conversations/{id}/messages, as validated by the route. */
export interface SendMessageInput {
  accountId: string;
  message?: string;
  attachment?: { type: InboxAttachment['type']; url: string; filename?: string | null };
  quickReplies?: OutgoingMessage['quickReplies'];
  buttons?: OutgoingMessage['buttons'];
  template?: OutgoingMessage['template'];
  replyMarkup?: Record<string, unknown>;
  messagingType?: string;
  messageTag?: string;
  replyTo?: string;
}

/**
 * What every platform's send needs, checked before any call: something to send, quick replies and
 * buttons not both, a tag only with MESSAGE_TAG, and nothing the platform cannot carry (400
 * PLATFORM_LIMITATION naming it, never dropped silently).
 */
export function checkMessageFeatures(platform: string, features: MessageFeatures, input: SendMessageInput): void {
  const hasText = typeof input.message === 'string' && input.message.trim().length > 0;
  if (!hasText && !input.attachment && !input.template) {
    throw invalidFields('Send a message, an attachment or a template', {
      message: ['message is required without an attachment or template'],
    });
  }
  if (input.quickReplies?.length && input.buttons?.length) {
    throw invalidFields('quickReplies and buttons cannot be sent together', {
      buttons: ['mutually exclusive with quickReplies'],
    });
  }
  if (input.messageTag && input.messagingType !== 'MESSAGE_TAG') {
    throw invalidFields('messageTag needs messagingType MESSAGE_TAG', {
      messagingType: ['must be MESSAGE_TAG when messageTag is set'],
    });
  }
  if (input.messagingType === 'MESSAGE_TAG' && !input.messageTag) {
    throw invalidFields('messagingType MESSAGE_TAG needs a messageTag', {
      messageTag: ['required with messagingType MESSAGE_TAG'],
    });
  }
  const asked: Array<[keyof MessageFeatures, boolean, string]> = [
    ['attachments', Boolean(input.attachment), 'attachments in direct messages'],
    ['quickReplies', Boolean(input.quickReplies?.length), 'quick replies'],
    ['buttons', Boolean(input.buttons?.length), 'message buttons'],
    ['templates', Boolean(input.template), 'message templates'],
    ['replyMarkup', Boolean(input.replyMarkup), 'reply keyboards (replyMarkup)'],
  ];
  for (const [feature, used, what] of asked) if (used && !features[feature]) throw platformLimitation(platform, what);
  const types = features.attachments;
  if (input.attachment && Array.isArray(types) && !types.includes(input.attachment.type))
    throw platformLimitation(platform, `${input.attachment.type} attachments in direct messages`);
  if (input.replyTo !== undefined && input.replyTo.trim() === '')
    throw invalid('validation_error', 'replyTo is empty', { fields: { replyTo: ['must be a message id'] } });
}

/**
 * The platform's reply window (MessageFeatures.replyWindow, Messenger's 24 hours): once it has passed
 * since the participant last wrote (or they never did), only messagingType MESSAGE_TAG with one of the
 * platform's tags goes out; anything else is refused here, before the platform is called.
 */
export function checkReplyWindow(
  platform: string,
  features: MessageFeatures,
  input: SendMessageInput,
  lastIncomingAt: Date | null,
  now: Date,
): void {
  const window = features.replyWindow;
  if (!window) return;
  const open = lastIncomingAt !== null && now.getTime() - lastIncomingAt.getTime() < window.hours * 3_600_000;
  if (open) return;
  if (input.messagingType === 'MESSAGE_TAG' && input.messageTag && window.tags.includes(input.messageTag)) return;
  throw invalid(
    'outside_messaging_window',
    `The ${window.hours}-hour window to answer this conversation has closed: send it with messagingType MESSAGE_TAG and a messageTag (${window.tags.join(', ')})`,
    {
      platform,
      fields: { messageTag: [`required after the ${window.hours}-hour window: one of ${window.tags.join(', ')}`] },
    },
  );
}
