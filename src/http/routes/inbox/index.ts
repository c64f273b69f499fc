import type { AppContext } from '../../../context.js';
import { assertInboxAddon } from '../../../domain/inbox/access.js';
import type { App } from '../../app.js';
import deleteComment from './delete-comment.js';
import editMessage from './edit-message.js';
import getConversation from './get-conversation.js';
import getPostComments from './get-post-comments.js';
import hideComment from './hide-comment.js';
import likeComment from './like-comment.js';
import listCommentedPosts from './list-commented-posts.js';
import listConversations from './list-conversations.js';
import listMessages from './list-messages.js';
import listReviews from './list-reviews.js';
import privateReply from './private-reply.js';
import replyToPost from './reply-to-post.js';
import reviewReply from './review-reply.js';
import sendMessage from './send-message.js';
import updateConversation from './update-conversation.js';

/** /v1/inbox/*: the inbox add-on. Without it every route answers 403 "Inbox addon required", before anything else. */
export function registerInboxRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    const inbox = scope as App;
    inbox.addHook('onRequest', async (request) => assertInboxAddon(request.principal));
    listConversations(inbox, ctx);
    getConversation(inbox, ctx);
    updateConversation(inbox, ctx);
    listMessages(inbox, ctx);
    sendMessage(inbox, ctx);
    editMessage(inbox, ctx);
    listCommentedPosts(inbox, ctx);
    getPostComments(inbox, ctx);
    replyToPost(inbox, ctx);
    deleteComment(inbox, ctx);
    hideComment(inbox, ctx);
    likeComment(inbox, ctx);
    privateReply(inbox, ctx);
    listReviews(inbox, ctx);
    reviewReply(inbox, ctx);
  });
}
