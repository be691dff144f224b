import type { Context } from '../../context.js';
import { orgRole, requireOrg, requireSpace } from '../../auth/permissions.js';
import { atLeast, type RoleName } from '../../auth/roles.js';
import { badRequest, notFound } from '../../errors.js';
import { Prisma, type Translation } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { enqueueJob } from '../../jobs/queue.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { RUN_ATTEMPTS, RUN_JOB } from './run.js';

/**
 * Translations of spaces (an organization's). Members with a role read them; translating creates
 * content, so creating, changing, deleting and running them needs the organization role that
 * creates content (`create`, or `admin`) — and, to create one, read access to the source space.
 * A run writes the translated pages into the translation's own space (created by the first run,
 * next to the source space); deleting a translation keeps that space.
 */
export const READ_ROLE: RoleName = 'read';
export const WRITE_ROLE: RoleName = 'create';

export async function translationPermissions(ctx: Context, organizationId: string) {
  const role = await orgRole(ctx, organizationId);
  return { view: atLeast(role, READ_ROLE), edit: atLeast(role, WRITE_ROLE) };
}

export async function listTranslations(ctx: Context, organizationId: string, args: PageArgs) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const where = { organizationId };
  return paginate(
    args,
    () => ctx.prisma.translation.count({ where }),
    (w) => ctx.prisma.translation.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

export async function getTranslation(ctx: Context, organizationId: string, id: string): Promise<Translation> {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const translation = await ctx.prisma.translation.findFirst({ where: { id, organizationId } });
  if (!translation) throw notFound('Translation');
  return translation;
}

export interface CreateTranslationInput {
  source: { space: string; language: string };
  language: string;
  instructions?: unknown;
}

const instructionsOf = (value: unknown) =>
  value == null ? Prisma.DbNull : (check.richTextDocument('instructions', value) as Prisma.InputJsonValue);

export async function createTranslation(ctx: Context, organizationId: string, input: CreateTranslationInput) {
  await requireOrg(ctx, organizationId, WRITE_ROLE);
  if (input.source.language === input.language) throw badRequest('language', 'must differ from source.language');
  const space = await requireSpace(ctx, input.source.space, 'read').catch((error) => {
    throw error?.code === 'NOT_FOUND' || error?.code === 'FORBIDDEN'
      ? badRequest('source.space', `"${input.source.space}" is not a space you can read`)
      : error;
  });
  if (space.organizationId !== organizationId) throw badRequest('source.space', 'is a space of another organization');
  const instructions = instructionsOf(input.instructions);
  const existing = await ctx.prisma.translation.findFirst({ where: { sourceSpaceId: space.id, language: input.language } });
  if (existing) throw badRequest('language', `the space already has a translation into ${input.language} (${existing.id})`);
  try {
    return await ctx.prisma.translation.create({
      data: {
        id: newId(),
        organizationId,
        sourceSpaceId: space.id,
        sourceLanguage: input.source.language,
        language: input.language,
        instructions,
        createdById: ctx.caller.id,
      },
    });
  } catch (error) {
    // Two creations at once: the unique (space, language) refuses the second.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
      throw badRequest('language', `the space already has a translation into ${input.language}`);
    throw error;
  }
}

export async function updateTranslation(ctx: Context, organizationId: string, id: string, input: { instructions?: unknown }) {
  await getTranslation(ctx, organizationId, id);
  await requireOrg(ctx, organizationId, WRITE_ROLE);
  if (input.instructions === undefined) throw badRequest('instructions', 'is required');
  return ctx.prisma.translation.update({ where: { id }, data: { instructions: instructionsOf(input.instructions) } });
}

/** Deletes a translation (its result space stays); 404 when there is none. */
export async function deleteTranslation(ctx: Context, organizationId: string, id: string) {
  await getTranslation(ctx, organizationId, id);
  await requireOrg(ctx, organizationId, WRITE_ROLE);
  const { count } = await ctx.prisma.translation.deleteMany({ where: { id, organizationId } });
  if (!count) throw notFound('Translation');
  return true;
}

/** Queues a run: status `pending` until a worker takes it (a run in progress stays `running`). */
export async function runTranslation(ctx: Context, organizationId: string, id: string) {
  await getTranslation(ctx, organizationId, id);
  await requireOrg(ctx, organizationId, WRITE_ROLE);
  await ctx.prisma.$transaction(async (tx) => {
    await tx.translation.updateMany({ where: { id, status: { not: 'running' } }, data: { status: 'pending', failureReason: null } });
    await enqueueJob(tx, RUN_JOB, { translationId: id }, { maxAttempts: RUN_ATTEMPTS });
  });
  return true;
}
