import type { Services } from '../../context.js';
import type { Prisma, Space } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { IsolateLimitError, runIsolated } from '../../jobs/isolate.js';
import type { JobDefinition } from '../../jobs/queue.js';
import { placeAmongSiblings } from '../collections/index.js';
import { documentText } from '../../document/index.js';
import { reindexSpace, canonicalJson, Content, ContentWriter, getBodies, putBody, type PageEntry } from '../content/index.js';
import { shorten, wordCount } from '../conversations/index.js';
import { insertSpace } from '../spaces/index.js';
import { translatorFor, type Translator } from './translator.js';

/**
 * A translation run (job `translations.run`, queued by POST …/run): translates the source space's
 * current revision into the translation's result space, creating that space on the first run (in
 * the source's collection, right after it, with the target language). Each page keeps its place,
 * type, slug (so relative links keep working), emoji and visibility; its title, description and
 * body are translated — bodies through ./segments.ts, which changes text only.
 *
 * Incremental: the translation remembers, per source page, the target page it wrote and the body
 * hash, title and description it translated. A later run translates only what changed since
 * (new pages, changed bodies or titles); unchanged pages keep their translation — also any edit
 * made to it in the result space — and only follow the source's structure; pages deleted from the
 * source are deleted from the result. Files and variables are copied as they are.
 *
 * Status: pending (queued) → running → completed; a run that cannot finish is retried (status
 * pending, with the reason) up to RUN_ATTEMPTS times, then `failed` with the reason. The network
 * calls happen outside any transaction; the result is written in one transaction, checked against
 * the translation's run count so two concurrent runs cannot both write.
 */
export const RUN_JOB = 'translations.run';
export const RUN_ATTEMPTS = 3;

/** What a run remembers of each source page it translated. */
interface TranslatedPage {
  /** The target page's id. */
  page: string;
  title: string;
  description: string;
  body: string | null;
}

/** A failure that retrying cannot fix. */
class PermanentFailure extends Error {}

/**
 * Parsing pages into texts and writing translations back run in a worker thread (./tasks.ts), off
 * the event loop, within these limits per step; a run over them fails saying so (not retried).
 */
const TASKS = new URL('./tasks.ts', import.meta.url);
const LIMITS = { timeoutMs: 120_000, memoryMb: 512 };

async function isolated<T>(task: 'segmentBodies' | 'applyTranslations', input: unknown): Promise<T> {
  try {
    return await runIsolated<T>(TASKS, task, input, LIMITS);
  } catch (error) {
    if (error instanceof IsolateLimitError) {
      throw new PermanentFailure(
        `Translating (${task === 'segmentBodies' ? 'reading the pages' : 'writing the translated pages'}) ${error.message} (the limits are ${LIMITS.memoryMb} MB and ${LIMITS.timeoutMs / 1000} s): the space's pages are too large to translate in one run`,
      );
    }
    throw error;
  }
}

/** The job kind, listed in the module registry (src/modules/index.ts). */
export const runJob: JobDefinition = {
  kind: RUN_JOB,
  handler: async (payload: { translationId: string }, services, job) => {
    try {
      await runTranslationNow(services, payload.translationId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const permanent = error instanceof PermanentFailure;
      const last = permanent || job.attempts >= RUN_ATTEMPTS;
      await services.db.prisma.translation.updateMany({
        where: { id: payload.translationId },
        data: last
          ? { status: 'failed', failureReason: message.slice(0, 1000) }
          : { status: 'pending', failureReason: `attempt ${job.attempts} of ${RUN_ATTEMPTS} failed, retrying: ${message}`.slice(0, 1000) },
      });
      if (!permanent) throw error;
    }
  },
};

type Translation = NonNullable<Awaited<ReturnType<Services['db']['prisma']['translation']['findUnique']>>>;
type Work = { page: PageEntry; title: boolean; description: boolean; body: boolean };
type Segmented = { source: string; texts: string[]; words: number };
type Plan = Work & { titleAt: number; descriptionAt: number; markdown: Segmented | null; bodyAt: number };
type Applied = { markdown: string; links: { href: string; text: string }[] };

/** What to translate: pages new to the translation, or whose title, description or body changed. */
function workToDo(sourcePages: PageEntry[], targetPages: Map<string, PageEntry>, previous: Record<string, TranslatedPage>): Work[] {
  const work: Work[] = [];
  for (const page of sourcePages) {
    const before = previous[page.id];
    const existing = before ? targetPages.get(before.page) : undefined;
    const fresh = !before || !existing || existing.type !== page.type;
    const item = {
      page,
      title: fresh || before!.title !== page.title,
      description: !!page.description && (fresh || before!.description !== page.description),
      body: page.type === 'document' && !!page.body && (fresh || before!.body !== page.body),
    };
    if (item.title || item.description || item.body) work.push(item);
  }
  return work;
}

/** The texts to send to the translator, in order, and where each page's title, description and body segments sit among them. */
function planTexts(work: Work[], segments: Map<string, Segmented>) {
  const texts: string[] = [];
  let words = 0;
  const plans: Plan[] = work.map((w) => {
    const plan: Plan = { ...w, titleAt: -1, descriptionAt: -1, markdown: null, bodyAt: -1 };
    if (w.title) {
      plan.titleAt = texts.push(w.page.title) - 1;
      words += wordCount(w.page.title);
    }
    if (w.description) {
      plan.descriptionAt = texts.push(w.page.description!) - 1;
      words += wordCount(w.page.description!);
    }
    if (w.body) {
      const markdown = segments.get(w.page.id)!;
      plan.markdown = markdown;
      plan.bodyAt = texts.length;
      texts.push(...markdown.texts);
      words += markdown.words;
    }
    return plan;
  });
  return { plans, texts, words };
}

/** The network part of a run, outside any transaction: bodies segmented, texts translated, translated bodies written back. */
async function translateWork(services: Services, translation: Translation, translator: Translator, work: Work[]) {
  const bodies = await getBodies(
    services.db.prisma,
    work.filter((w) => w.body).map((w) => w.page.body!),
  );
  const withBody = work.filter((w) => w.body);
  const segmented = withBody.length
    ? await isolated<{ texts: string[]; words: number }[]>('segmentBodies', { bodies: withBody.map((w) => bodies.get(w.page.body!) ?? '') })
    : [];
  const segments = new Map(withBody.map((w, i) => [w.page.id, { source: bodies.get(w.page.body!) ?? '', ...segmented[i]! }]));
  const { plans, texts, words } = planTexts(work, segments);
  const translated = texts.length
    ? await translator.translate(texts, {
        source: translation.sourceLanguage,
        target: translation.language,
        instructions: translation.instructions ? documentText(translation.instructions) || null : null,
      })
    : [];
  if (translated.length !== texts.length) throw new Error('the translator answered a different number of texts');
  const toApply = plans.filter((p) => p.body && p.markdown);
  const appliedList = toApply.length
    ? await isolated<Applied[]>('applyTranslations', {
        items: toApply.map((p) => ({
          source: p.markdown!.source,
          translated: translated.slice(p.bodyAt, p.bodyAt + p.markdown!.texts.length),
        })),
      })
    : [];
  const applied = new Map(toApply.map((p, i) => [p.page.id, appliedList[i]!]));
  return { plans, translated, applied, words };
}

/** Runs one translation now (the job handler's work; tests call it through the queue). */
export async function runTranslationNow(
  services: Services,
  translationId: string,
  translator: Translator | null = translatorFor(services.config),
): Promise<void> {
  const prisma = services.db.prisma;
  const started = Date.now();
  const claimed = await prisma.translation.updateMany({ where: { id: translationId }, data: { status: 'running' } });
  if (!claimed.count) return; // deleted since it was queued
  const translation = (await prisma.translation.findUnique({ where: { id: translationId } }))!;
  if (!translator) throw new PermanentFailure('No translator is configured: set LECTERN_TRANSLATOR_URL to a LibreTranslate-compatible API');
  const source = await prisma.space.findUnique({ where: { id: translation.sourceSpaceId } });
  if (!source || source.deletedAt) throw new PermanentFailure('The source space was deleted');
  const sourceContent = await contentOf(prisma, source.revisionId);
  const sourcePages = (await sourceContent.allPages()).sort((a, b) => (a.id < b.id ? -1 : 1));

  let target: Space | null = translation.resultSpaceId ? await prisma.space.findUnique({ where: { id: translation.resultSpaceId } }) : null;
  if (target?.deletedAt) target = null; // its space was deleted: the run starts a new one
  const targetPages = new Map(target ? (await (await contentOf(prisma, target.revisionId)).allPages()).map((p) => [p.id, p]) : []);
  const previous = (target ? translation.pages : {}) as unknown as Record<string, TranslatedPage>;
  const work = workToDo(sourcePages, targetPages, previous);
  const result = await translateWork(services, translation, translator, work);
  await prisma.$transaction(
    (tx) => writeResult(tx, { translation, source, sourceContent, sourcePages, target, previous, started, ...result }),
    { timeout: 120_000 },
  );
}

interface RunResult {
  translation: Translation;
  source: Space;
  sourceContent: Content;
  sourcePages: PageEntry[];
  target: Space | null;
  previous: Record<string, TranslatedPage>;
  started: number;
  plans: Plan[];
  translated: string[];
  applied: Map<string, Applied>;
  words: number;
}

/** The run's one transaction: the result space's new revision and the translation's memory and counts, unless another run finished first. */
async function writeResult(tx: Prisma.TransactionClient, run: RunResult) {
  const { translation, source, sourceContent, sourcePages, target, previous, plans, words } = run;
  const [locked] = await tx.$queryRaw<{ runs: number }[]>`SELECT runs FROM "Translation" WHERE id = ${translation.id} FOR UPDATE`;
  if (!locked) return; // deleted meanwhile
  if (locked.runs !== translation.runs) throw new Error('another run of this translation finished first');
  const at = new Date().toISOString();
  let space = target ? await tx.space.findUnique({ where: { id: target.id } }) : null;
  if (!space || space.deletedAt) space = await createResultSpace(tx, source, translation.language);
  await tx.$queryRaw`SELECT id FROM "Space" WHERE id = ${space.id} FOR UPDATE`;
  space = (await tx.space.findUnique({ where: { id: space.id } }))!;
  const base = await contentOf(tx, space.revisionId);
  const writer = new ContentWriter(base);
  const remembered = await writeTranslatedPages(tx, writer, run, at);
  const kept = new Set(sourcePages.map((p) => p.id));
  for (const [sourceId, before] of Object.entries(previous)) {
    if (!kept.has(sourceId) && (await writer.get(before.page))) await writer.remove(before.page);
  }
  const [sourceFiles, targetFiles] = await Promise.all([sourceContent.files(), base.files()]);
  if (canonicalJson(sourceFiles) !== canonicalJson(targetFiles)) writer.setFiles(sourceFiles);
  writer.setVariables({ ...sourceContent.manifest.variables });
  const revision = await commitRevision(tx, space, writer, translation.createdById);
  const translatedPages = plans.length;
  const newPages = plans.filter((p) => !(p.page.id in (translation.pages as Record<string, unknown>))).length;
  const duration = Date.now() - run.started;
  await tx.translation.update({
    where: { id: translation.id },
    data: {
      status: 'completed',
      failureReason: null,
      resultSpaceId: space.id,
      resultRevisionId: revision,
      sourceRevisionId: source.revisionId,
      pages: remembered as unknown as Prisma.InputJsonValue,
      runs: { increment: 1 },
      totalWords: { increment: words },
      totalPages: { increment: newPages },
      totalDurationMs: { increment: duration },
      latestRunDurationMs: duration,
      latestPages: translatedPages,
      latestWords: words,
    },
  });
}

/** Each source page written to the result space (translated where planned, else as translated before); returns what the run remembers. */
async function writeTranslatedPages(tx: Prisma.TransactionClient, writer: ContentWriter, run: RunResult, at: string) {
  const { sourcePages, previous, plans, translated, applied } = run;
  // Target ids first, so parents resolve whatever the order.
  const ids = new Map(sourcePages.map((p) => [p.id, previous[p.id]?.page ?? newId()]));
  const planned = new Map(plans.map((p) => [p.page.id, p]));
  const remembered: Record<string, TranslatedPage> = {};
  for (const page of sourcePages) {
    const id = ids.get(page.id)!;
    const existing = await writer.get(id);
    const plan = planned.get(page.id);
    const entry: PageEntry = {
      id,
      parent: page.parent ? (ids.get(page.parent) ?? null) : null,
      position: page.position,
      type: page.type,
      title: plan?.title ? translated[plan.titleAt]!.trim() || page.title : (existing?.title ?? page.title),
      slug: page.slug,
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.hidden ? { hidden: true } : {}),
      ...(page.href !== undefined ? { href: page.href } : {}),
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    };
    const description = plan?.description ? translated[plan.descriptionAt]!.trim() : page.description ? existing?.description : undefined;
    if (description) entry.description = description;
    if (page.type === 'document') {
      const result = plan?.body && plan.markdown ? applied.get(page.id) : undefined;
      if (result) {
        entry.body = await putBody(tx, result.markdown, result.links);
      } else entry.body = existing?.body ?? page.body;
    }
    const { updatedAt: _a, ...comparable } = entry;
    const { updatedAt: _b, ...before } = existing ?? ({} as PageEntry);
    if (!existing || canonicalJson(comparable) !== canonicalJson(before)) await writer.put(entry);
    remembered[page.id] = { page: id, title: page.title, description: page.description ?? '', body: page.body ?? null };
  }
  return remembered;
}

/** A new revision of the result space when the writer changed anything; returns the space's revision. */
async function commitRevision(tx: Prisma.TransactionClient, space: Space, writer: ContentWriter, createdById: string | null) {
  if (!writer.changed) return space.revisionId;
  const manifest = await writer.write(tx);
  const revision = newId();
  await tx.revision.create({
    data: { id: revision, spaceId: space.id, parents: [space.revisionId], type: 'edits', manifest, createdById },
  });
  await tx.space.update({ where: { id: space.id }, data: { revisionId: revision } });
  await reindexSpace(tx, space.id, space.revisionId, revision);
  return revision;
}

type Db = Pick<Prisma.TransactionClient, 'revision' | 'contentObject' | '$queryRaw' | 'fileBlob' | 'bodyLink'>;

async function contentOf(db: Db, revisionId: string): Promise<Content> {
  const revision = await db.revision.findUnique({ where: { id: revisionId } });
  return Content.load(db as never, revision?.manifest ?? '');
}

/** The space a translation writes to: next to its source, in the same collection, in the target language. */
async function createResultSpace(tx: Prisma.TransactionClient, source: Space, language: string) {
  const position = await placeAmongSiblings(tx, { organizationId: source.organizationId, parentId: source.parentId }, '', {
    after: { type: 'space', space: source.id },
  });
  return insertSpace(tx, {
    organizationId: source.organizationId,
    parentId: source.parentId,
    title: shorten(`${source.title || 'Untitled'} (${language})`, 50),
    emoji: source.emoji,
    language,
    editMode: 'live',
    defaultLevel: source.defaultLevel,
    visibility: source.visibility,
    position,
  });
}
