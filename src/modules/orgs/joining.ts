import type { Context } from '../../context.js';
import { forbidden } from '../../errors.js';
import type { Organization } from '../../generated/prisma/client.js';

// The joining rules belong to organizations: invites (links) and email-domain joins both follow them.
/**
 * Whether the caller may join `org` on their own (invite link, email domain):
 * - not with a token issued by another organization's single sign-on (it reaches only that one);
 * - not into an organization that enforces single sign-on: its members join by signing in through
 *   its identity provider, which adds them.
 */
export function assertMayJoin(ctx: Context, org: Organization) {
  const scope = ctx.session.ssoOrganizationId;
  if (scope !== null && scope !== org.id) {
    throw forbidden('This token comes from the single sign-on of another organization and reaches only that organization');
  }
  if (org.sso && scope !== org.id) {
    throw forbidden(
      `This organization requires single sign-on: join by signing in through its identity provider (GET /v1/orgs/${org.id}/sso lists the start URLs)`,
    );
  }
}
