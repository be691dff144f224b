import type { Context } from '../../context.js';
import { forbidden, notFound } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import type { RoleName } from '../../auth/roles.js';
import { accessRows } from '../../auth/access-rows.js';
import { writeGrant, type PendingGrant } from '../permissions/index.js';

/**
 * Invitations of existing accounts (Lectern's addition to the official email invites): an admin's
 * `POST /orgs/{id}/invites` naming the email of an account that already exists does not add it;
 * it invites it. The account joins only when it accepts, signed in as itself, and accepting is
 * also its consent to the organization's single sign-on: from then on the organization's identity
 * provider may link a NameID to it by email (`Member.ssoConsentAt`). Without that, an admin could
 * invite anyone's account and sign it in through an identity provider they control.
 * An account that is already a member without that consent gets an invitation too (accepting it
 * records the consent and changes nothing else).
 */

type Tx = Prisma.TransactionClient;

/** Creates or renews the invitations of `userIds` (in one transaction of the inviting admin). */
export async function inviteAccounts(
  tx: Tx,
  organizationId: string,
  invitedById: string,
  invites: { userId: string; role: RoleName | null; sso: boolean }[],
) {
  for (const { userId, role, sso } of invites) {
    await tx.organizationInvitation.upsert({
      where: { organizationId_userId: { organizationId, userId } },
      create: { id: newId(), organizationId, userId, role, sso, invitedById },
      update: { role, sso, invitedById },
    });
  }
}

/** The caller's pending invitations, oldest first. */
export function listMyInvitations(ctx: Context, args: PageArgs) {
  const where = { userId: ctx.caller.id };
  return paginate(
    args,
    () => ctx.prisma.organizationInvitation.count({ where }),
    (w) => ctx.prisma.organizationInvitation.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

/**
 * Accepts the caller's invitation to an organization: a newcomer joins with the invitation's role
 * (and `sso`); a member keeps their role. Either way the account consents to the organization's
 * single sign-on. 404 when the caller has no invitation there (as for an organization that does
 * not exist). A token from another organization's single sign-on may not accept (it reaches only
 * that organization); an ordinary token may, also where single sign-on is required: accepting is
 * what lets this organization's identity provider sign the account in.
 */
export async function acceptInvitation(ctx: Context, organizationId: string): Promise<boolean> {
  const scope = ctx.session.ssoOrganizationId;
  if (scope !== null && scope !== organizationId) {
    throw forbidden('This token comes from the single sign-on of another organization and reaches only that organization');
  }
  const now = new Date();
  await ctx.prisma.$transaction(async (tx) => {
    const key = { organizationId_userId: { organizationId, userId: ctx.caller.id } };
    const invitation = await tx.organizationInvitation.findUnique({ where: key });
    if (!invitation) throw notFound('Invitation');
    const member = await tx.member.findUnique({ where: key });
    if (member?.disabled) throw forbidden('Your membership of this organization is disabled');
    // A concurrent accept of the same invitation already did the rest.
    if ((await tx.organizationInvitation.deleteMany({ where: { id: invitation.id } })).count === 0) return;
    if (member) {
      await tx.member.update({ where: key, data: { ssoConsentAt: now, sso: member.sso || invitation.sso } });
    } else {
      await tx.member.create({
        data: { organizationId, userId: ctx.caller.id, role: invitation.role, sso: invitation.sso, ssoConsentAt: now },
      });
    }
    await applyPendingGrants(tx, organizationId, ctx.caller.id, invitation.grants as unknown as PendingGrant[]);
  });
  accessRows(ctx).callerMembership.clear(organizationId);
  return true;
}

/**
 * The grants an invitation carries (inviteToSpace/Collection/Site by email, permissions module),
 * given as the account joins: raised only, never lowering a grant it got meanwhile; a space,
 * collection or site deleted (or gone to another organization) since is skipped.
 */
async function applyPendingGrants(tx: Tx, organizationId: string, userId: string, grants: PendingGrant[]) {
  if (!Array.isArray(grants) || grants.length === 0) return;
  const idsOf = (kind: string) => grants.filter((g) => g.kind === kind).map((g) => g.id);
  const where = (kind: string) => ({ where: { id: { in: idsOf(kind) }, organizationId }, select: { id: true } });
  const [spaces, collections, sites] = await Promise.all([
    tx.space.findMany(where('space')),
    tx.collection.findMany(where('collection')),
    tx.site.findMany(where('site')),
  ]);
  const alive = new Set([...spaces, ...collections, ...sites].map((r) => r.id));
  for (const g of grants) {
    if (alive.has(g.id)) await writeGrant(tx, g.kind, { id: g.id, organizationId }, 'user', userId, g.role, { raiseOnly: true });
  }
}

/** Declines (deletes) the caller's invitation to an organization; 404 when there is none. */
export async function declineInvitation(ctx: Context, organizationId: string): Promise<boolean> {
  const { count } = await ctx.prisma.organizationInvitation.deleteMany({ where: { organizationId, userId: ctx.caller.id } });
  // No invitation (declined already, or never sent, or no such organization): one answer for all.
  if (!count) throw notFound('Invitation');
  return true;
}
