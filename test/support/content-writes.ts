/**
 * Writing content in tests with the official format (`updateChangeRequestContent`, @gitbook/api
 * 0.202.0): `{ changes: [{ operation: 'insert_page', document: { markdown }, into, at, ref, … }] }`.
 * Every test that needs pages writes them through these two helpers, so the write format lives in
 * one place. A write that does not answer 200 throws with the answer (tests that expect a refusal
 * call the route themselves).
 */
import type { Harness } from './harness.js';
import { assertMatchesSpec, assertRequestMatchesSpec } from './openapi.js';

/** One official change (typed loosely: tests also send wrong ones on purpose through h.call). */
export type Change = { operation: string; [field: string]: unknown };

export interface WriteResult {
  /** The new head revision (of the change request, or of main for live writes). */
  revision: string;
  /** Ids of the pages created by the batch, in order (empty with `compat: true`, which answers no list). */
  pages: string[];
  /** Ids of the files inserted by the batch, in order (empty with `compat: true`). */
  files: string[];
  /** The answer as received. */
  body: any;
}

/** `{ changes, insertedFiles }` of a compat=false (or live) answer → created page ids and file ids. */
function idsOf(body: any): { pages: string[]; files: string[] } {
  const changes: any[] = body?.changes ?? [];
  return {
    pages: changes.filter((c) => c.object === 'created_page').map((c) => c.page.id as string),
    files: ((body?.insertedFiles ?? []) as any[]).map((f) => f.id as string),
  };
}

function failed(what: string, res: { status: number; body: unknown }): never {
  throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/**
 * Writes to a change request (by id or number) through the official route, its answer checked
 * against the official schema. `compat` defaults to false here (so created page ids come back);
 * pass `{ compat: true }` to get the official default answer (the change request alone).
 */
export async function writeCr(
  h: Harness,
  token: string,
  spaceId: string,
  crIdOrNumber: string | number,
  changes: Change[],
  opts: { compat?: boolean } = {},
): Promise<WriteResult> {
  const compat = opts.compat ?? false;
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crIdOrNumber}/content?compat=${compat}`, {
    token,
    body: { changes },
  });
  if (res.status !== 200) failed('updateChangeRequestContent', res);
  assertMatchesSpec('updateChangeRequestContent', res.status, res.body);
  // Lectern's own operation (update_variables) is outside the official request body: only official batches are checked.
  // Lectern also takes an insert_page without `document` (an empty page, or a group or link page): checked as `document: {}`.
  const asOfficial = changes.map((c) => (c.operation === 'insert_page' && c.document === undefined ? { ...c, document: {} } : c));
  if (changes.every((c) => c.operation !== 'update_variables'))
    assertRequestMatchesSpec('updateChangeRequestContent', { changes: asOfficial });
  h.coveredOperations.add('updateChangeRequestContent');
  const revision = compat ? res.body.revision : res.body.changeRequest.revision;
  return { revision, ...idsOf(res.body), body: res.body };
}

/** Writes live to main (`POST /v1/spaces/:spaceId/content`, Lectern's own route; the space's edit mode must be `live`). */
export async function writeLive(h: Harness, token: string, spaceId: string, changes: Change[]): Promise<WriteResult> {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/content`, { token, body: { changes } });
  if (res.status !== 200) failed('POST /spaces/:spaceId/content', res);
  return { revision: res.body.revision, ...idsOf(res.body), body: res.body };
}

/** Shorthands for the most common changes. */
export const md = (markdown: string) => ({ markdown });
export const insertPage = (title: string, markdown = '', more: Record<string, unknown> = {}): Change => ({
  operation: 'insert_page',
  title,
  document: { markdown },
  ...more,
});
export const updatePage = (page: string, more: Record<string, unknown>): Change => ({ operation: 'update_page', page, ...more });
export const base64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
