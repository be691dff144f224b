// Imports every domain module (each adds its types, queries and mutations to the builder), then builds.
import { builder } from './builder.js';
import './enums.js';
import '../modules/users/user.js';
import '../modules/orgs/organization.js';
import '../modules/orgs/member.js';
import '../modules/collections/collection.js';
import '../modules/spaces/space.js';
import '../modules/content/revision.js';
import '../modules/change-requests/change-request.js';
import '../modules/links/links.js';
import '../modules/search/search.js';
import '../modules/comments/comment.js';
import '../modules/teams/team.js';
import '../modules/invites/invite.js';
import '../modules/sso/provider.js';
import '../modules/sites/types.js';
import '../modules/openapi/spec.js';
import '../modules/conversations/conversation.js';
import '../modules/translations/translation.js';
import '../modules/agent-instructions/agent-instructions.js';

export const schema = builder.toSchema({ sortSchema: true });
