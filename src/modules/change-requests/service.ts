import type { Context } from '../../context.js';
import { requireOrg, requireSpace, spacePermissions, spaceRole, visibleContentFilter } from '../../auth/permissions.js';
import { badRequest, conflict, forbidden, LecternError, notFound, preconditionFailed } from '../../errors.js';
import { Prisma, type ChangeRequest, type Space } from '../../generated/prisma/client.js';
import { nextChangeRequestNumber } from '../../change-request-numbers.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import {
  applyChanges,
  type ChangeOutcome,
  type ContentChange,
  fetchFileSources,
  fileJson,
  mergeContents,
  type MergeConflict,
  Content,
  reindexSpace,
} from '../content/index.js';
import { fetchBytes } from '../../outbound/index.js';
import { serverKeys } from '../../secrets.js';
import { documentText } from '../../document/index.js';
import { accessRows } from '../../auth/access-rows.js';
import { publishAfterWrite, publishInTransaction, type LiveEvent } from '../../live/events.js';
import { afterMainMoved } from '../git-sync/index.js';
import { Resolutions } from './conflicts.js';
import { refuseChangedDocuments } from './based-on.js';

type Tx = Prisma.TransactionClient;
export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;

/**
 * Serialises writers of one space's main line and change requests (the row lock lasts the
 * transaction). A writer waits at most LOCK_WAIT for each lock on its way (PostgreSQL counts each
 * acquisition: behind another waiter, about twice that): past it, it gives its connection back and
 * answers 409 with Retry-After (errors.ts) instead of holding a pooled connection while it waits
 * (which is how a queue of writers starved everyone else of connections).
 */
const LOCK_WAIT = '5s';
async function lockSpace(tx: Tx, spaceId: string): Promise<Space> {
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`);
  await tx.$queryRaw`SELECT id FROM "Space" WHERE id = ${spaceId} FOR UPDATE`;
  return (await tx.space.findUnique({ where: { id: spaceId } }))!;
}

/**
 * Live updates (src/live/): the topics this module publishes on, per space (subscriptions.ts
 * subscribes to them). Content: main moved (`merged` a change request, or `edited` live).
 * Change requests: `created`, `updated` (subject, description, content, brought up to date),
 * `status_changed` (draft, open, archived: closed and reopened), `merged`, and `reviewed` (the
 * reviews module's: a review submitted, reviewers requested or one taken off).
 */
export const contentTopic = (spaceId: string) => `content:${spaceId}`;
export const changeRequestTopic = (spaceId: string) => `change-request:${spaceId}`;
export type ChangeRequestAction = 'created' | 'updated' | 'status_changed' | 'merged' | 'reviewed';
export const changeRequestEvent = (cr: Pick<ChangeRequest, 'id' | 'spaceId'>, action: ChangeRequestAction): LiveEvent => ({
  topic: changeRequestTopic(cr.spaceId),
  action,
  spaceId: cr.spaceId,
  changeRequestId: cr.id,
});
const contentEvent = (spaceId: string, action: 'merged' | 'edited', revisionId: string, changeRequestId: string | null): LiveEvent => ({
  topic: contentTopic(spaceId),
  action,
  spaceId,
  revisionId,
  changeRequestId,
});

export interface ChangeRequestFilters extends PageArgs {
  status?: string | null;
  creator?: string | null;
  contributor?: string | null;
  requestedReviewer?: string | null;
  conversationsIssuesCluster?: string | null;
}

function filterWhere(f: ChangeRequestFilters): Prisma.ChangeRequestWhereInput {
  const status = f.status ?? 'open';
  if (!(CHANGE_REQUEST_STATUSES as readonly string[]).includes(status))
    throw badRequest('status', `must be one of ${CHANGE_REQUEST_STATUSES.join(', ')}`);
  return {
    status,
    ...(f.creator ? { createdById: f.creator } : {}),
    ...(f.contributor ? { contributors: { has: f.contributor } } : {}),
    ...(f.requestedReviewer ? { requestedReviewers: { some: { userId: f.requestedReviewer } } } : {}),
    ...(f.conversationsIssuesCluster ? { conversationsIssuesCluster: f.conversationsIssuesCluster } : {}),
  };
}

const ORDER = [{ createdAt: 'desc' as const }, { id: 'asc' as const }];

export async function listChangeRequests(ctx: Context, spaceId: string, filters: ChangeRequestFilters) {
  await requireSpace(ctx, spaceId);
  const where = { spaceId, ...filterWhere(filters) };
  return paginate(
    filters,
    () => ctx.prisma.changeRequest.count({ where }),
    (w) => ctx.prisma.changeRequest.findMany({ where, orderBy: ORDER, ...w }),
  );
}

/** Change requests of every space of the organization the caller can see. */
export async function listOrganizationChangeRequests(ctx: Context, organizationId: string, filters: ChangeRequestFilters) {
  await requireOrg(ctx, organizationId);
  const visible = await visibleContentFilter(ctx, organizationId);
  const where: Prisma.ChangeRequestWhereInput = {
    ...filterWhere(filters),
    space: { AND: [{ organizationId, deletedAt: null }, visible.spaces] },
  };
  return paginate(
    filters,
    () => ctx.prisma.changeRequest.count({ where }),
    (w) => ctx.prisma.changeRequest.findMany({ where, orderBy: ORDER, ...w }),
  );
}

/** A change request by id or by its number in the space. */
export async function getChangeRequest(ctx: Context, spaceId: string, idOrNumber: string): Promise<ChangeRequest> {
  await requireSpace(ctx, spaceId);
  const byNumber = /^\d+$/.test(idOrNumber) ? Number(idOrNumber) : null;
  const cr = await ctx.prisma.changeRequest.findFirst({
    where: { spaceId, OR: [{ id: idOrNumber }, ...(byNumber !== null && byNumber <= 2 ** 31 - 1 ? [{ number: byNumber }] : [])] },
  });
  if (!cr) throw notFound('Change request');
  return cr;
}

export async function createChangeRequest(ctx: Context, spaceId: string, input: { subject?: string | null }) {
  const space = await requireSpace(ctx, spaceId, 'edit');
  if (space.editMode === 'locked') throw forbidden('This space is locked: no change can be made');
  const subject = input.subject == null ? null : check.text('subject', input.subject, { max: 100 });
  return ctx.prisma.$transaction(async (tx) => {
    const locked = await lockSpace(tx, space.id);
    const created = await tx.changeRequest.create({
      data: {
        id: newId(),
        spaceId,
        number: await nextChangeRequestNumber(tx, spaceId),
        // Created open (the seed's list shows open ones by default); authors may mark it draft.
        status: 'open',
        subject,
        createdById: ctx.caller.id,
        revisionId: locked.revisionId,
        revisionInitial: locked.revisionId,
        revisionMergedAncestor: locked.revisionId,
        contributors: [ctx.caller.id],
      },
    });
    await publishInTransaction(tx, changeRequestEvent(created, 'created'));
    return created;
  });
}

function assertWritable(cr: ChangeRequest) {
  if (cr.status === 'merged') throw conflict('This change request is merged');
  if (cr.status === 'archived') throw conflict('This change request is archived; reopen it first');
}

export async function updateChangeRequest(
  ctx: Context,
  spaceId: string,
  idOrNumber: string,
  input: { subject?: string | null; description?: unknown; status?: string | null },
) {
  const cr = await getChangeRequest(ctx, spaceId, idOrNumber);
  const space = await requireSpace(ctx, spaceId, 'read');
  const role = await spaceRole(ctx, space);
  if (cr.createdById !== ctx.caller.id && !spacePermissions(role).edit)
    throw forbidden('Only its author or editors of the space can change a change request');
  if (cr.status === 'merged') throw conflict('This change request is merged');
  const data: Prisma.ChangeRequestUpdateInput = {};
  if (input.subject !== undefined) data.subject = input.subject === null ? null : check.text('subject', input.subject, { max: 100 });
  if (input.description !== undefined) {
    // The whole document is checked (as the official JSONDocument): it is answered back as stored.
    const doc = input.description === null ? null : check.richTextDocument('description', input.description);
    data.description = doc === null ? Prisma.DbNull : (doc as Prisma.InputJsonValue);
  }
  if (input.status !== undefined && input.status !== null) {
    if (!['draft', 'open', 'archived'].includes(input.status)) throw badRequest('status', 'must be draft, open or archived');
    data.status = input.status;
  }
  const updated = await ctx.prisma.changeRequest.update({ where: { id: cr.id }, data });
  await publishAfterWrite(ctx.prisma, changeRequestEvent(updated, updated.status !== cr.status ? 'status_changed' : 'updated'));
  return updated;
}

async function contentOf(tx: Tx, revisionId: string): Promise<Content> {
  const revision = await tx.revision.findUnique({ where: { id: revisionId } });
  return Content.load(tx, revision?.manifest ?? '');
}

function conflictError(conflicts: MergeConflict[]) {
  const pages = conflicts.map((c) => (c.page ? `"${c.title}" (${c.page}): ${c.reason}` : c.reason));
  return new LecternError('CONFLICT', `Merge conflict on ${conflicts.length} page(s): ${pages.join('; ')}`);
}

/** The merge rules that apply to the space: its own, or its organization's when it inherits. */
async function effectiveMergeRules(ctx: Context, space: Space) {
  const rules = space.mergeRules as { type: string; rules?: { rule: string; users?: string[] }[] };
  if (rules.type !== 'inherit') return rules;
  const org = await accessRows(ctx).organization.load(space.organizationId);
  return (org?.mergeRules ?? { type: 'none' }) as typeof rules;
}

/** One merge rule checked against a change request: `reason` says why it is not met (null: met). */
export interface MergeRuleCheck {
  rule: string;
  reason: string | null;
}

/**
 * The rules that apply, each checked against the change request as it is now, and whether the
 * caller is listed in an `allow_bypass` rule (then none of them holds the merge back). An approval
 * counts for the change request's current head only. Rules this server cannot evaluate (an agent
 * review, a custom expression) are never met: merge gates fail closed.
 */
export async function mergeRuleChecks(ctx: Context, db: Tx, space: Space, cr: ChangeRequest) {
  const rules = await effectiveMergeRules(ctx, space);
  if (rules.type !== 'rules') return { bypass: false, checks: [] as MergeRuleCheck[] };
  const users = (rule: { users?: string[] }) => rule.users ?? [];
  const bypass = (rules.rules ?? []).some((rule) => rule.rule === 'allow_bypass' && users(rule).includes(ctx.caller.id));
  const allReviews = await db.changeRequestReview.findMany({ where: { changeRequestId: cr.id } });
  const approvedBy = new Set(allReviews.filter((r) => r.status === 'approved' && r.revisionId === cr.revisionId).map((r) => r.userId));
  const unmet = (rule: { rule: string; users?: string[] }): string | null => {
    switch (rule.rule) {
      case 'require_specific_reviewers': {
        const missing = users(rule).filter((u) => !approvedBy.has(u));
        return missing.length ? `Merge rules: approval still needed from ${missing.join(', ')}` : null;
      }
      case 'require_one_of_specific_reviewers':
        return users(rule).some((u) => approvedBy.has(u)) ? null : `Merge rules: approval needed from one of ${users(rule).join(', ')}`;
      case 'require_at_least_one_review':
        return approvedBy.size ? null : 'Merge rules: at least one approving review is needed';
      case 'require_all_reviews_approved': {
        const pending = allReviews.filter((r) => !approvedBy.has(r.userId)).map((r) => r.userId);
        return pending.length ? `Merge rules: every review must approve the current head; not yet: ${pending.join(', ')}` : null;
      }
      case 'require_up_to_date_change_request':
        return cr.revisionMergedAncestor === space.revisionId
          ? null
          : 'Merge rules: the change request must be up to date with main; update it first';
      case 'require_change_request_subject':
        return cr.subject ? null : 'Merge rules: the change request needs a subject';
      case 'require_change_request_description':
        return documentText(cr.description) ? null : 'Merge rules: the change request needs a description';
      case 'require_agent_review':
        return 'Merge rules: an agent review is required, and this server has no review agent (a user listed in allow_bypass can merge)';
      case 'custom':
        return 'Merge rules: custom expressions are not evaluated by this server (a user listed in allow_bypass can merge)';
    }
    return null;
  };
  const checks = (rules.rules ?? [])
    .filter((rule) => rule.rule !== 'allow_bypass')
    .map((rule) => ({ rule: rule.rule, reason: unmet(rule) }));
  return { bypass, checks };
}

/** Every rule must pass, unless the caller may bypass them: the first one not met refuses the merge. */
async function enforceMergeRules(ctx: Context, tx: Tx, space: Space, cr: ChangeRequest) {
  const { bypass, checks } = await mergeRuleChecks(ctx, tx, space, cr);
  const failed = checks.find((check) => check.reason);
  if (!bypass && failed) throw preconditionFailed(failed.reason!);
}

/** Merges a change request into main: fast-forward when main has not moved, else three-way. */
export async function mergeChangeRequest(ctx: Context, spaceId: string, idOrNumber: string) {
  const cr0 = await getChangeRequest(ctx, spaceId, idOrNumber);
  const space0 = await requireSpace(ctx, spaceId, 'review');
  if (space0.editMode === 'locked') throw forbidden('This space is locked: no change can be merged');
  // Already merged: answered without a transaction (a retried merge is cheap).
  assertWritable(cr0);
  const result = await ctx.prisma.$transaction(
    async (tx) => {
      // One merge of a change request at a time, and the others answer at once rather than queue
      // behind it holding a connection each: a transaction-scoped advisory lock, tried, not awaited.
      const [{ locked }] = await tx.$queryRaw<
        [{ locked: boolean }]
      >`SELECT pg_try_advisory_xact_lock(hashtextextended(${`lectern:merge:${cr0.id}`}, 0)) AS locked`;
      if (!locked) throw conflict('A merge of this change request is in progress');
      const space = await lockSpace(tx, spaceId);
      const cr = (await tx.changeRequest.findUnique({ where: { id: cr0.id } }))!;
      assertWritable(cr);
      await enforceMergeRules(ctx, tx, space, cr);
      let revision: string;
      if (space.revisionId === cr.revisionMergedAncestor) {
        revision = cr.revisionId; // fast-forward: main becomes the change request's head
      } else {
        const [base, ours, theirs] = await Promise.all([
          contentOf(tx, cr.revisionMergedAncestor),
          contentOf(tx, space.revisionId),
          contentOf(tx, cr.revisionId),
        ]);
        const merged = await mergeContents(tx, base, ours, theirs, { main: 'ours' });
        if (!merged.manifest) throw conflictError(merged.conflicts);
        const manifest = merged.manifest;
        revision = newId();
        await tx.revision.create({
          data: { id: revision, spaceId, parents: [space.revisionId, cr.revisionId], type: 'merge', manifest, createdById: ctx.caller.id },
        });
      }
      await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
      await tx.changeRequest.update({ where: { id: cr.id }, data: { status: 'merged', revisionMerged: revision, mergedAt: new Date() } });
      await reindexSpace(tx, spaceId, space.revisionId, revision);
      await publishInTransaction(tx, contentEvent(spaceId, 'merged', revision, cr.id));
      // A space synced with Git: one commit for this merge (queued with it).
      await afterMainMoved(tx, {
        spaceId,
        revisionId: revision,
        userId: ctx.caller.id,
        changeRequest: { number: cr.number, subject: cr.subject },
      });
      await publishInTransaction(tx, changeRequestEvent(cr, 'merged'));
      return revision;
    },
    { timeout: 60_000 },
  );
  accessRows(ctx).space.clear(spaceId);
  return { revision: result, result: 'merge' as const };
}

/**
 * Brings main's changes into the change request (three-way). `resolutions` (Lectern addition)
 * give the Markdown of pages whose bodies conflict: those pages take it, the rest merges as always;
 * a resolution the merge has no use for is refused, and a refusal changes nothing.
 */
export async function updateChangeRequestFromMain(
  ctx: Context,
  spaceId: string,
  idOrNumber: string,
  resolutionInput?: Parameters<typeof Resolutions.read>[0],
) {
  const cr0 = await getChangeRequest(ctx, spaceId, idOrNumber);
  await requireSpace(ctx, spaceId, 'edit');
  const resolutions = await Resolutions.read(resolutionInput);
  const revision = await ctx.prisma.$transaction(
    async (tx) => {
      const space = await lockSpace(tx, spaceId);
      const cr = (await tx.changeRequest.findUnique({ where: { id: cr0.id } }))!;
      assertWritable(cr);
      if (space.revisionId === cr.revisionMergedAncestor || cr.revisionId === cr.revisionMergedAncestor) resolutions.checkUsed([]);
      if (space.revisionId === cr.revisionMergedAncestor) return cr.revisionId;
      let head: string;
      if (cr.revisionId === cr.revisionMergedAncestor)
        head = space.revisionId; // no edits yet: just follow main
      else {
        const [base, ours, theirs] = await Promise.all([
          contentOf(tx, cr.revisionMergedAncestor),
          contentOf(tx, cr.revisionId),
          contentOf(tx, space.revisionId),
        ]);
        const merged = await mergeContents(tx, base, ours, theirs, { main: 'theirs', resolutions: resolutions.markdown });
        resolutions.checkUsed(merged.resolved);
        if (!merged.manifest) throw conflictError(merged.conflicts);
        const manifest = merged.manifest;
        head = newId();
        await tx.revision.create({
          data: {
            id: head,
            spaceId,
            parents: [cr.revisionId, space.revisionId],
            type: 'update',
            manifest,
            changeRequestId: cr.id,
            createdById: ctx.caller.id,
          },
        });
      }
      await tx.changeRequest.update({ where: { id: cr.id }, data: { revisionId: head, revisionMergedAncestor: space.revisionId } });
      await publishInTransaction(tx, changeRequestEvent(cr, 'updated'));
      return head;
    },
    { timeout: 60_000 },
  );
  return { revision, result: 'update' as const };
}

/** What a write answers: the new head revision, what happened to which pages, and the files inserted. */
export interface ContentWriteResult {
  revision: string;
  /** The change request after the batch (writes to a change request only). */
  changeRequest?: ChangeRequest;
  changes: (ChangeOutcome & { location: string })[];
  insertedFiles: ReturnType<typeof fileJson>[];
}

/** Fetches `url` files through the one outbound guard (before any transaction). */
const fetchSources = (changes: unknown) => fetchFileSources(changes, fetchBytes);

/** A revision of the space by id, for `revert_page` with `revision` (undefined when it is not one of this space's). */
const revisionContentOf = (tx: Tx, spaceId: string) => async (id: string) => {
  const revision = await tx.revision.findUnique({ where: { id } });
  return revision?.spaceId === spaceId ? Content.load(tx, revision.manifest) : undefined;
};

/** The answer's entries: each page's API URL where it was written (`urls.location` of the official answer). */
async function writeResult(
  ctx: Context,
  spaceId: string,
  revision: string,
  applied: AppliedWrite,
  pageUrl: (page: string) => string,
): Promise<ContentWriteResult> {
  const keys = await serverKeys(ctx);
  return {
    revision,
    changes: applied.changes.map((c) => ({ ...c, location: pageUrl(c.page) })),
    insertedFiles: applied.insertedFiles.map((f) => fileJson(ctx, keys, spaceId, f)),
  };
}
type AppliedWrite = Awaited<ReturnType<typeof applyChanges>>;

/** Applies a batch of content changes (the official `updateChangeRequestContent` body) to a change request. */
export async function writeChangeRequestContent(
  ctx: Context,
  spaceId: string,
  idOrNumber: string,
  changes: ContentChange[],
  opts: { basedOn?: string | null } = {},
): Promise<ContentWriteResult> {
  const cr0 = await getChangeRequest(ctx, spaceId, idOrNumber);
  const space0 = await requireSpace(ctx, spaceId, 'edit');
  if (space0.editMode === 'locked') throw forbidden('This space is locked: no change can be made');
  assertWritable(cr0);
  const fetched = await fetchSources(changes);
  const { cr, revision, applied } = await ctx.prisma.$transaction(
    async (tx) => {
      await lockSpace(tx, spaceId);
      const cr = (await tx.changeRequest.findUnique({ where: { id: cr0.id } }))!;
      assertWritable(cr);
      const [base, revertTo] = await Promise.all([contentOf(tx, cr.revisionId), contentOf(tx, cr.revisionMergedAncestor)]);
      if (opts.basedOn != null)
        await refuseChangedDocuments(tx, spaceId, { revision: cr.revisionId, content: base }, opts.basedOn, changes);
      const applied = await applyChanges(tx, base, changes, { revertTo, revisionContent: revisionContentOf(tx, spaceId), fetched });
      let revision = cr.revisionId;
      if (applied.manifest) {
        revision = newId();
        await tx.revision.create({
          data: {
            id: revision,
            spaceId,
            parents: [cr.revisionId],
            type: 'edits',
            manifest: applied.manifest,
            changeRequestId: cr.id,
            createdById: ctx.caller.id,
          },
        });
      }
      const updated = await tx.changeRequest.update({
        where: { id: cr.id },
        data: { revisionId: revision, ...(cr.contributors.includes(ctx.caller.id) ? {} : { contributors: { push: ctx.caller.id } }) },
      });
      if (revision !== cr.revisionId) await publishInTransaction(tx, changeRequestEvent(cr, 'updated'));
      return { cr: updated, revision, applied };
    },
    { timeout: 60_000 },
  );
  const result = await writeResult(ctx, spaceId, revision, applied, (page) =>
    ctx.urls.api(`/spaces/${spaceId}/change-requests/${cr.id}/content/page/${page}`),
  );
  return { ...result, changeRequest: cr };
}

/** Live edits: applies the same batch to main directly (only in `live` edit mode). */
export async function writeSpaceContent(ctx: Context, spaceId: string, changes: ContentChange[]): Promise<ContentWriteResult> {
  const space0 = await requireSpace(ctx, spaceId, 'edit');
  if (space0.editMode !== 'live') throw forbidden('This space is locked: no change can be made');
  const fetched = await fetchSources(changes);
  const { revision, applied } = await ctx.prisma.$transaction(
    async (tx) => {
      const space = await lockSpace(tx, spaceId);
      const base = await contentOf(tx, space.revisionId);
      // Main has no base to go back to: `revert_page` on main needs a `revision`.
      const applied = await applyChanges(tx, base, changes, { revertTo: base, revisionContent: revisionContentOf(tx, spaceId), fetched });
      let revision = space.revisionId;
      if (applied.manifest) {
        revision = newId();
        await tx.revision.create({
          data: {
            id: revision,
            spaceId,
            parents: [space.revisionId],
            type: 'edits',
            manifest: applied.manifest,
            createdById: ctx.caller.id,
          },
        });
        await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
        await reindexSpace(tx, spaceId, space.revisionId, revision);
        await publishInTransaction(tx, contentEvent(spaceId, 'edited', revision, null));
        await afterMainMoved(tx, { spaceId, revisionId: revision, userId: ctx.caller.id });
      }
      return { revision, applied };
    },
    { timeout: 60_000 },
  );
  accessRows(ctx).space.clear(spaceId);
  return writeResult(ctx, spaceId, revision, applied, (page) => ctx.urls.api(`/spaces/${spaceId}/content/page/${page}`));
}
