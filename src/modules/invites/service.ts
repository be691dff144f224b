import type { Context } from '../../context.js';
import { collectionRole, orgRole, requireCollection, requireOrg, requireSpace, spaceRole } from '../../auth/permissions.js';
import { atLeast, higher, type RoleName } from '../../auth/roles.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { InviteLink } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { hashSecret, serverKeys } from '../../secrets.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { inviteAccounts } from './account-invitations.js';
import { assertMayJoin } from '../orgs/index.js';
import { accessRows } from '../../auth/access-rows.js';
import { writeGrant } from '../permissions/index.js';

/**
 * Invitations to an organization.
 * - Invite links: an admin creates a link carrying a role (null: guest); whoever holds its id can
 *   join the organization with that role (`POST /orgs/{id}/invites/{inviteId}`). The id is the
 *   secret: 32 base62 characters (~190 random bits), shown only to the organization's admins.
 *   Links work only while the organization's `inviteLinks` is on. A link to one space or collection
 *   (`space` or `collection` with `level`, made by an admin of that content) makes whoever joins a
 *   guest of the organization (a member keeps their role) with a grant of `level` there (never
 *   lowering a grant they have).
 * - Email invites: an admin invites people by email; an existing account joins only when it
 *   accepts, signed in as itself (./account-invitations.ts); an email without an account gets one
 *   (unverified: Lectern sends no mail), which its owner reaches through the organization's SSO
 *   or a token from the operator.
 * - Joining (by invite link, or by email domain: orgs/service.ts) follows `assertMayJoin` (orgs/joining.ts).
 */

/** The code of a new invite link (its official `id`): its only secret. */
const newInviteCode = () => newId(32);

/**
 * At rest an invite link's code is only its SHA-256 (the row's `id`) and a copy sealed with the
 * server key (`codeSealed`, src/secrets.ts): the official API shows the `id` on every read, to
 * admins. A link made before codes were sealed is shown (and managed) under its hash; the code its
 * holders have still joins. Joining takes only the code, never the hash.
 */
const HASH = /^[0-9a-f]{64}$/;
const rowIdOf = (inviteIdOrHash: string) => (HASH.test(inviteIdOrHash) ? inviteIdOrHash : hashSecret(inviteIdOrHash));
const sealContext = (rowId: string) => `invite-link\n${rowId}`;

/** The `id` an invite link is shown with: its code, or its hash when no sealed code opens. */
export async function inviteLinkId(ctx: Context, invite: InviteLink): Promise<string> {
  return (await serverKeys(ctx)).open(sealContext(invite.id), invite.codeSealed) ?? invite.id;
}

/** Whether the caller already has everything the invite would give (any member, for a guest invite). */
export async function inviteRedundant(ctx: Context, invite: InviteLink) {
  const role = await orgRole(ctx, invite.organizationId);
  if (role === undefined) return false;
  if (invite.spaceId) {
    const space = await accessRows(ctx).space.load(invite.spaceId);
    return space !== null && atLeast(await spaceRole(ctx, space), invite.role as RoleName);
  }
  if (invite.collectionId) {
    const collection = await accessRows(ctx).collection.load(invite.collectionId);
    return collection !== null && atLeast(await collectionRole(ctx, collection), invite.role as RoleName);
  }
  return invite.role == null || atLeast(role, invite.role);
}

export async function listInviteLinks(ctx: Context, organizationId: string, args: PageArgs) {
  await requireOrg(ctx, organizationId, 'admin');
  const where = { organizationId };
  return paginate(
    args,
    () => ctx.prisma.inviteLink.count({ where }),
    (w) => ctx.prisma.inviteLink.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

/**
 * An invite link, for who may manage it: the organization's admins, and for a link to one space or
 * collection also the admins of that content (who may create such links).
 */
export async function getInviteLink(ctx: Context, organizationId: string, inviteId: string) {
  await requireOrg(ctx, organizationId);
  const invite = await ctx.prisma.inviteLink.findFirst({ where: { id: rowIdOf(inviteId), organizationId } });
  if (invite?.spaceId || invite?.collectionId) {
    if (invite.spaceId) await requireSpace(ctx, invite.spaceId, 'admin');
    else await requireCollection(ctx, invite.collectionId!, 'admin');
    return invite;
  }
  await requireOrg(ctx, organizationId, 'admin');
  if (!invite) throw notFound('Invite');
  return invite;
}

export interface InviteLinkInput {
  role?: RoleName | null;
  level?: RoleName | null;
  space?: string | null;
  collection?: string | null;
}

/**
 * What an invite link gives: an organization role (`role`, null for a guest), or (`space` or
 * `collection`, with `level`) a grant on one space or collection to someone who joins as a guest.
 */
async function inviteScope(ctx: Context, organizationId: string, input: InviteLinkInput) {
  const scoped = input.space != null || input.collection != null;
  if (!scoped) {
    if (input.level !== undefined) throw badRequest('level', 'is for an invite to a space or collection: give `role` for the organization');
    if (input.role === undefined) throw badRequest('role', 'is required (a role, or null for a guest)');
    return { role: input.role, spaceId: null, collectionId: null };
  }
  if (input.space != null && input.collection != null) throw badRequest('collection', 'give either space or collection, not both');
  if (input.role !== undefined) throw badRequest('role', 'an invite to a space or collection gives `level` (who joins is a guest)');
  // The official MemberRoleOrGuest allows a null level; a link that gives a guest nothing on the
  // content would give nothing at all, so Lectern asks for a role.
  if (input.level == null) throw badRequest('level', 'is required: the role on the space or collection (a role, not null)');
  const target =
    input.space != null ? await requireSpace(ctx, input.space, 'admin') : await requireCollection(ctx, input.collection!, 'admin');
  if (target.organizationId !== organizationId) throw notFound(input.space != null ? 'Space' : 'Collection');
  return { role: input.level, spaceId: input.space ?? null, collectionId: input.collection ?? null };
}

export async function createInviteLink(ctx: Context, organizationId: string, input: InviteLinkInput) {
  const scoped = input.space != null || input.collection != null;
  const org = await requireOrg(ctx, organizationId, scoped ? 'member' : 'admin');
  const scope = await inviteScope(ctx, organizationId, input);
  if (!org.inviteLinks) throw forbidden('Invite links are turned off in this organization (its inviteLinks setting)');
  const code = newInviteCode();
  const id = hashSecret(code);
  const codeSealed = (await serverKeys(ctx)).seal(sealContext(id), code);
  return ctx.prisma.inviteLink.create({ data: { id, codeSealed, organizationId, ...scope, createdById: ctx.caller.id } });
}

/** Changes a link's role (`role`), or the level of a link to a space or collection (`level`). */
export async function updateInviteLink(ctx: Context, organizationId: string, inviteId: string, input: InviteLinkInput) {
  const invite = await getInviteLink(ctx, organizationId, inviteId);
  if (invite.spaceId || invite.collectionId) {
    if (input.role !== undefined) throw badRequest('role', 'an invite to a space or collection gives `level`');
    if (input.level == null) throw badRequest('level', 'is required: the role on the space or collection (a role, not null)');
    return ctx.prisma.inviteLink.update({ where: { id: invite.id }, data: { role: input.level } });
  }
  if (input.level !== undefined) throw badRequest('level', 'is for an invite to a space or collection: give `role`');
  if (input.role === undefined) throw badRequest('role', 'is required (a role, or null for a guest)');
  return ctx.prisma.inviteLink.update({ where: { id: invite.id }, data: { role: input.role } });
}

/**
 * Deletes an invite link (true: 205). Outside the organization, or for a link it does not have: 404,
 * the same answer either way (the organization is checked first, so a link to a space says no
 * more than one to the organization).
 */
export async function deleteInviteLink(ctx: Context, organizationId: string, inviteId: string) {
  await requireOrg(ctx, organizationId);
  const invite = await ctx.prisma.inviteLink.findFirst({
    where: { id: rowIdOf(inviteId), organizationId },
    select: { spaceId: true, collectionId: true },
  });
  if (!invite) throw notFound('Invite');
  if (invite.spaceId) await requireSpace(ctx, invite.spaceId, 'admin');
  else if (invite.collectionId) await requireCollection(ctx, invite.collectionId, 'admin');
  else await requireOrg(ctx, organizationId, 'admin');
  const { count } = await ctx.prisma.inviteLink.deleteMany({ where: { id: rowIdOf(inviteId), organizationId } });
  if (!count) throw notFound('Invite');
  return true;
}

/**
 * Joins the organization through an invite link. A new member gets the link's role; a member
 * whose role is lower is raised to it (a link never lowers a role); a disabled member stays out.
 */
export async function joinWithInviteLink(ctx: Context, organizationId: string, inviteId: string) {
  const [org, invite] = await Promise.all([
    accessRows(ctx).organization.load(organizationId),
    ctx.prisma.inviteLink.findFirst({ where: { id: hashSecret(inviteId), organizationId } }),
  ]);
  if (!org || !invite) throw notFound('Invite');
  if (!org.inviteLinks) throw forbidden('Invite links are turned off in this organization');
  assertMayJoin(ctx, org);
  const scoped = invite.spaceId
    ? { kind: 'space' as const, id: invite.spaceId }
    : invite.collectionId
      ? { kind: 'collection' as const, id: invite.collectionId }
      : null;
  await ctx.prisma.$transaction(async (tx) => {
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId: ctx.caller.id } } });
    if (member?.disabled) throw forbidden('Your membership of this organization is disabled');
    if (scoped) {
      // A scoped link: a guest (a member keeps their role) with the link's role on the content.
      if (!member) await tx.member.createMany({ data: [{ organizationId, userId: ctx.caller.id, role: null }], skipDuplicates: true });
      if (invite.role)
        await writeGrant(tx, scoped.kind, { id: scoped.id, organizationId }, 'user', ctx.caller.id, invite.role as RoleName, {
          raiseOnly: true,
        });
      return;
    }
    if (!member) {
      // skipDuplicates: a concurrent join by the same caller is not an error (joining is idempotent).
      await tx.member.createMany({ data: [{ organizationId, userId: ctx.caller.id, role: invite.role }], skipDuplicates: true });
      return;
    }
    const raised = member.role == null ? invite.role : higher(member.role as RoleName, invite.role);
    if (raised !== member.role) {
      await tx.member.update({ where: { organizationId_userId: { organizationId, userId: ctx.caller.id } }, data: { role: raised } });
    }
  });
  accessRows(ctx).callerMembership.clear(organizationId);
  return true;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAILS = 100;

/** One entry of `emails` checked: an email (the default role) or `{ email, role }` (role null: a guest). */
export function invitee(entry: unknown, i: number, defaultRole: RoleName | null): { email: string; role: RoleName | null } {
  let email: unknown = entry;
  let role = defaultRole;
  if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
    const value = entry as Record<string, unknown>;
    const unknown = Object.keys(value).find((k) => k !== 'email' && k !== 'role');
    if (unknown) throw badRequest(`emails[${i}].${unknown}`, 'is not a known field');
    if (!('role' in value)) throw badRequest(`emails[${i}].role`, 'is required (a role, or null for a guest)');
    email = value.email;
    role = check.role(`emails[${i}].role`, value.role);
  }
  if (typeof email !== 'string' || !EMAIL.test(email.trim()))
    throw badRequest(`emails[${i}]`, 'must be an email address or { email, role }');
  return { email: email.trim().toLowerCase(), role };
}

export interface InviteUsersInput {
  emails: unknown[];
  role?: RoleName | null;
  sso?: boolean | null;
}

/**
 * Invites people to the organization by email (admins). Each entry is an email or `{ email, role }`;
 * `role` is the default for the others (absent: the organization's default role). `sso` marks the
 * new members as SSO members. An email without an account gets one, a member at once (nobody else
 * owns that account). An existing account is only invited: it joins when it accepts, signed in as
 * itself (./account-invitations.ts). Members are left as they are (one that has not yet consented to the
 * organization's single sign-on gets an invitation to do so, not counted). Answers the ids of the
 * accounts added or invited, in the order of the emails, and their number: alike whether or not an
 * email already had an account.
 */
export async function inviteUsers(ctx: Context, organizationId: string, input: InviteUsersInput) {
  const org = await requireOrg(ctx, organizationId, 'admin');
  if (input.emails.length === 0) throw badRequest('emails', 'must list at least one email');
  if (input.emails.length > MAX_EMAILS) throw badRequest('emails', `may list at most ${MAX_EMAILS} emails at once`);
  const defaultRole: RoleName | null = input.role !== undefined ? input.role : (org.defaultRole as RoleName | null);
  const wanted = new Map<string, RoleName | null>();
  input.emails.forEach((entry, i) => {
    const { email, role } = invitee(entry, i, defaultRole);
    if (!wanted.has(email)) wanted.set(email, role);
  });

  const sso = input.sso ?? false;
  const added = await ctx.prisma.$transaction(async (tx) => {
    const emails = [...wanted.keys()];
    const users = await tx.user.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } });
    const byEmail = new Map(users.map((u) => [u.email, u.id]));
    const missing = emails.filter((e) => !byEmail.has(e));
    if (missing.length) {
      const created = missing.map((email) => ({ id: newId(), email, displayName: email.split('@')[0]!, emailVerified: false }));
      await tx.user.createMany({ data: created });
      for (const u of created) byEmail.set(u.email, u.id);
    }
    const ids = emails.map((e) => byEmail.get(e)!);
    const members = new Map(
      (await tx.member.findMany({ where: { organizationId, userId: { in: ids } }, select: { userId: true, ssoConsentAt: true } })).map(
        (m) => [m.userId, m],
      ),
    );
    const isNew = new Set(missing);
    const fresh = emails.filter((e) => !members.has(byEmail.get(e)!));
    const now = new Date();
    await tx.member.createMany({
      data: fresh
        .filter((e) => isNew.has(e))
        .map((e) => ({ organizationId, userId: byEmail.get(e)!, role: wanted.get(e)!, sso, ssoConsentAt: now })),
    });
    const toInvite = emails.filter((e) => !isNew.has(e) && !members.get(byEmail.get(e)!)?.ssoConsentAt);
    await inviteAccounts(
      tx,
      organizationId,
      ctx.caller.id,
      toInvite.map((e) => ({ userId: byEmail.get(e)!, role: wanted.get(e)!, sso })),
    );
    return fresh.map((e) => byEmail.get(e)!);
  });
  return { users: added, invited: added.length };
}
