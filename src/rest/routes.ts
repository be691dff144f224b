// Every module's REST route table.
import type { RestRoute } from './route.js';
import { userRoutes } from '../modules/users/routes.js';
import { organizationRoutes } from '../modules/orgs/routes.js';
import { spaceRoutes } from '../modules/spaces/routes.js';
import { collectionRoutes } from '../modules/collections/routes.js';
import { contentRoutes } from '../modules/content/routes.js';
import { changeRequestRoutes } from '../modules/change-requests/routes.js';
import { linkRoutes } from '../modules/links/routes.js';
import { searchRoutes } from '../modules/search/routes.js';
import { commentRoutes } from '../modules/comments/routes.js';
import { teamRoutes } from '../modules/teams/routes.js';
import { inviteRoutes } from '../modules/invites/routes.js';
import { ssoRoutes } from '../modules/sso/routes.js';
import { siteRoutes } from '../modules/sites/routes.js';
import { openAPIRoutes } from '../modules/openapi/routes.js';
import { conversationRoutes } from '../modules/conversations/routes.js';
import { translationRoutes } from '../modules/translations/routes.js';
import { agentInstructionsRoutes } from '../modules/agent-instructions/routes.js';

export const routes: RestRoute[] = [...userRoutes, ...organizationRoutes, ...spaceRoutes, ...collectionRoutes, ...contentRoutes, ...changeRequestRoutes, ...linkRoutes, ...searchRoutes, ...commentRoutes, ...teamRoutes, ...inviteRoutes, ...ssoRoutes, ...siteRoutes, ...openAPIRoutes, ...conversationRoutes, ...translationRoutes, ...agentInstructionsRoutes];
