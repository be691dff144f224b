/**
 * The module registry: every module's REST routes, GraphQL types, job kinds and routes outside /v1,
 * in one place (per-request loaders are not listed: each module makes its own with `perRequest`).
 * The mechanisms (src/rest, src/graphql, src/jobs, src/app.ts's dispatch) import no module:
 * `installModules()` hands them these lists. Adding an endpoint means touching its module folder
 * and, for a new file of routes or types, one line here.
 */
import { buildSchema } from '../graphql/schema.js';
import type { HttpRoute } from '../http/routes.js';
import { registerJobHandlers, type JobDefinition } from '../jobs/queue.js';
import type { RestRoute } from '../rest/route.js';
import { useRoutes } from '../rest/routes.js';
import { registerSpaceRider } from '../graphql/early-space.js';

// GraphQL: each module's Pothos type files. Pothos registers a type on the builder when its file is
// loaded, so these imports are the list; installModules builds the schema after them.
import './users/user.js';
import './users/profile.js';
import './users/api-information.js';
import './orgs/organization.js';
import './orgs/member.js';
import './orgs/node.js';
import './orgs/creation.js';
import './collections/collection.js';
import './spaces/space.js';
import './content/revision.js';
import './content/revision-reads.js';
import './content/reusable-content-reads.js';
import './content/computed-reads.js';
import './content/cache-inputs.js';
import './content/page-node.js';
import './change-requests/change-request.js';
import './change-requests/merge-checks.js';
import './change-requests/node.js';
import './change-requests/semantic-changes.js';
import './change-requests/subscriptions.js';
import './change-requests/revision-routes.js';
import './change-requests/space-pdf.js';
import './links/links.js';
import './search/search.js';
import './comments/comment.js';
import './comments/commenters.js';
import './comments/subscriptions.js';
import './comments/node.js';
import './reviews/review.js';
import './reviews/node.js';
import './teams/team.js';
import './invites/invites-schema.js';
import './permissions/types.js';
import './audit/types.js';
import './sso/provider.js';
import './sites/types.js';
import './sites/subscriptions.js';
import './sites/node.js';
import './openapi/spec.js';
import './conversations/conversation.js';
import './translations/translation.js';
import './agent-instructions/agent-instructions.js';
import './git-sync/types.js';
import './imports/types.js';
import './sessions/types.js';
import './reader/page-html.js';

import { userRoutes } from './users/routes.js';
import { userProfileRoutes } from './users/user-routes.js';
import { organizationRoutes } from './orgs/routes.js';
import { organizationAccountRoutes } from './orgs/account-routes.js';
import { spaceRoutes } from './spaces/routes.js';
import { spaceCountsRider } from './spaces/index.js';
import { memberSpaceRoutes } from './spaces/member-spaces.js';
import { collectionRoutes } from './collections/routes.js';
import { contentRoutes } from './content/routes.js';
import { revisionReadRoutes } from './content/revision-reads.js';
import { reusableContentRoutes } from './content/reusable-content-reads.js';
import { computedRoutes } from './content/computed-reads.js';
import { changeRequestRoutes } from './change-requests/routes.js';
import { semanticChangeRoutes } from './change-requests/semantic-changes.js';
import { revisionRoutes } from './change-requests/revision-routes.js';
import { spacePdfRoutes } from './change-requests/space-pdf.js';
import { linkRoutes } from './links/routes.js';
import { searchRoutes } from './search/routes.js';
import { commentRoutes } from './comments/routes.js';
import { commenterRoutes } from './comments/commenters.js';
import { reviewRoutes } from './reviews/routes.js';
import { teamRoutes } from './teams/routes.js';
import { memberTeamRoutes } from './teams/member-teams.js';
import { inviteRoutes } from './invites/routes.js';
import { permissionRoutes } from './permissions/routes.js';
import { auditRoutes } from './audit/routes.js';
import { auditMutations, auditPruneJob } from './audit/index.js';
import { ssoRoutes } from './sso/routes.js';
import { siteRoutes } from './sites/routes.js';
import { openAPIRoutes } from './openapi/routes.js';
import { conversationRoutes } from './conversations/routes.js';
import { translationRoutes } from './translations/routes.js';
import { agentInstructionsRoutes } from './agent-instructions/routes.js';
import { gitSyncRoutes } from './git-sync/routes.js';
import { importRoutes, importJobs, importsHttpRoutes } from './imports/index.js';

import { openAPIJob } from './openapi/jobs.js';
import { analyseJob } from './conversations/analysis-job.js';
import { runJob } from './translations/run.js';
import { gitSyncJobs } from './git-sync/jobs.js';

import { filesHttpRoutes } from './content/files-http.js';
import { exportHttpRoutes } from './change-requests/export-http.js';
import { ssoHttpRoutes } from './sso/http.js';
import { openAPIHttpRoutes } from './openapi/http.js';
import { readerHttpRoutes } from './reader/index.js';
import { gitSyncHttpRoutes } from './git-sync/webhook.js';
import { oidcHttpRoutes } from './sessions/oidc.js';
import { appHttpRoutes } from './app/index.js';

/** Every module's /v1 routes (the order is the REST adapter's matching order). */
export const restRoutes: RestRoute[] = [
  ...userRoutes,
  ...userProfileRoutes,
  ...organizationRoutes,
  ...organizationAccountRoutes,
  ...spaceRoutes,
  ...memberSpaceRoutes,
  ...collectionRoutes,
  ...contentRoutes,
  ...revisionReadRoutes,
  ...reusableContentRoutes,
  ...computedRoutes,
  ...changeRequestRoutes,
  ...semanticChangeRoutes,
  ...revisionRoutes,
  ...spacePdfRoutes,
  ...linkRoutes,
  ...searchRoutes,
  ...commentRoutes,
  ...commenterRoutes,
  ...reviewRoutes,
  ...teamRoutes,
  ...memberTeamRoutes,
  ...inviteRoutes,
  ...permissionRoutes,
  ...auditRoutes,
  ...ssoRoutes,
  ...siteRoutes,
  ...openAPIRoutes,
  ...conversationRoutes,
  ...translationRoutes,
  ...agentInstructionsRoutes,
  ...gitSyncRoutes,
  ...importRoutes,
];

/** Every background job kind the queue runs. */
export const jobs: JobDefinition[] = [openAPIJob, analyseJob, runJob, auditPruneJob, ...gitSyncJobs, ...importJobs];

/** The routes outside /v1 and /graphql (token-less downloads, SSO, OpenAPI texts), each put on src/app.ts's router. */
export const httpRoutes: HttpRoute[] = [
  ...filesHttpRoutes,
  ...exportHttpRoutes,
  ...ssoHttpRoutes,
  ...openAPIHttpRoutes,
  ...readerHttpRoutes,
  ...gitSyncHttpRoutes,
  ...importsHttpRoutes,
  ...oidcHttpRoutes,
  ...appHttpRoutes,
];

let installed = false;

/** Hands the lists to the mechanisms (once; the entry points call it before serving). */
export function installModules() {
  if (installed) return;
  installed = true;
  useRoutes(restRoutes);
  registerJobHandlers(jobs);
  registerSpaceRider(spaceCountsRider);
  // Every write is a mutation: the audit log records them in one place (src/modules/audit/record.ts).
  auditMutations(buildSchema());
}
