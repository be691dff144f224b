import type { Context } from '../../context.js';
import { requireOrg } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import type { Prisma } from '../../generated/prisma/client.js';
import * as check from '../../validate.js';
import { documentFromMarkdown } from '../../document/index.js';

/**
 * The instructions of an organization's docs agent: a rich-text document. Members with a role read
 * them; only admins change them. Until they are first written they are an empty document, dated
 * from the organization's creation, with no author (`updatedBy` empty).
 */
export const READ_ROLE: RoleName = 'read';
export const WRITE_ROLE: RoleName = 'admin';

export interface AgentInstructionsView {
  organizationId: string;
  instructions: unknown;
  updatedAt: Date;
  updatedBy: string;
}

export async function getAgentInstructions(ctx: Context, organizationId: string): Promise<AgentInstructionsView> {
  const org = await requireOrg(ctx, organizationId, READ_ROLE);
  const row = await ctx.prisma.agentInstructions.findUnique({ where: { organizationId } });
  if (!row) return { organizationId, instructions: documentFromMarkdown(''), updatedAt: org.createdAt, updatedBy: '' };
  return { organizationId, instructions: row.instructions, updatedAt: row.updatedAt, updatedBy: row.updatedById };
}

export async function updateAgentInstructions(ctx: Context, organizationId: string, instructions: unknown): Promise<AgentInstructionsView> {
  await requireOrg(ctx, organizationId, WRITE_ROLE);
  const doc = check.richTextDocument('instructions', instructions) as Prisma.InputJsonValue;
  const row = await ctx.prisma.agentInstructions.upsert({
    where: { organizationId },
    create: { organizationId, instructions: doc, updatedById: ctx.caller.id },
    update: { instructions: doc, updatedById: ctx.caller.id },
  });
  return { organizationId, instructions: row.instructions, updatedAt: row.updatedAt, updatedBy: row.updatedById };
}
