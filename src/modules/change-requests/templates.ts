import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import type { ContentChange } from '../content/index.js';
import { writeChangeRequestContent, writeSpaceContent } from './service.js';

/**
 * Space templates: a small fixed set, each a batch of pages inserted at the end of the top level.
 * Applying one is an ordinary write: to a change request when one is named, else live to main
 * (which only a space in `live` edit mode allows). Template params (`contentRefs`) are accepted;
 * none of these templates has a slot for one. Applying one writes through change requests' service,
 * so templates live here rather than in content.
 */
export const TEMPLATES: Record<
  string,
  { title: string; pages: { title: string; description?: string; emoji?: string; markdown: string }[] }
> = {
  'getting-started': {
    title: 'Getting started',
    pages: [
      {
        title: 'Introduction',
        description: 'What this documentation covers',
        emoji: '👋',
        markdown: '# Introduction\n\nWelcome! This space documents the product: start here, then follow the quickstart.\n',
      },
      {
        title: 'Quickstart',
        description: 'Up and running in five minutes',
        markdown: '# Quickstart\n\n1. Install the product.\n2. Configure it.\n3. Check that it works.\n',
      },
      {
        title: 'FAQ',
        description: 'Frequently asked questions',
        markdown: '# FAQ\n\n## Where do I get help?\n\nAsk the team that maintains this space.\n',
      },
    ],
  },
  'api-reference': {
    title: 'API reference',
    pages: [
      { title: 'API overview', markdown: '# API overview\n\nBase URL, versioning and conventions.\n' },
      { title: 'Authentication', markdown: '# Authentication\n\nSend `Authorization: Bearer <token>` with every request.\n' },
      { title: 'Errors', markdown: '# Errors\n\n| Status | Meaning |\n| --- | --- |\n| 400 | Bad input |\n| 404 | Not found |\n' },
    ],
  },
  changelog: {
    title: 'Changelog',
    pages: [{ title: 'Changelog', emoji: '📝', markdown: '# Changelog\n\n## Unreleased\n\n- Nothing yet.\n' }],
  },
};

export interface ApplyTemplateInput {
  id: string;
  params?: unknown;
  changeRequestId?: string | null;
}

export function templateChanges(id: string): ContentChange[] {
  const template = Object.hasOwn(TEMPLATES, id) ? TEMPLATES[id] : undefined;
  if (!template) throw badRequest('id', `unknown template "${id}" (known: ${Object.keys(TEMPLATES).join(', ')})`);
  return template.pages.map(({ markdown, ...fields }) => ({ operation: 'insert_page' as const, ...fields, document: { markdown } }));
}

export async function applyTemplate(ctx: Context, spaceId: string, input: ApplyTemplateInput) {
  await requireSpace(ctx, spaceId, 'edit');
  const changes = templateChanges(input.id);
  if (input.params !== undefined && input.params !== null) {
    const params = input.params as Record<string, unknown>;
    if (typeof params !== 'object' || Array.isArray(params)) throw badRequest('params', 'must be an object');
    const refs = params.contentRefs;
    if (refs !== undefined && (typeof refs !== 'object' || refs === null || Array.isArray(refs)))
      throw badRequest('params.contentRefs', 'must be an object');
  }
  if (input.changeRequestId !== undefined && input.changeRequestId !== null) {
    return writeChangeRequestContent(ctx, spaceId, input.changeRequestId, changes);
  }
  return writeSpaceContent(ctx, spaceId, changes);
}
