/** The derivation cache (src/document/body-cache.ts): one parse per distinct body, the same answers as parsing. */
import { describe, expect, it } from 'vitest';
import {
  bodyCache,
  DerivationCache,
  derivedBodies,
  derivedBody,
  documentFromMarkdown,
  documentsOf,
  markdownParseCount,
  MarkdownLimitError,
  MARKDOWN_MAX_BYTES,
  OFFLOAD_CHARS,
  parseMarkdown,
  parseMarkdownOffLoop,
} from '../../src/document/index.js';

let unique = 0;
/** A body no other test has parsed in this process (the cache is the process's). */
const freshBody = (extra = '') =>
  `# Page ${++unique} ${Math.random()}\n\nText with [a link](https://example.com/${unique}) and **bold**.\n\n## Details\n\n- one\n- two\n${extra}`;
/** Parses counted around `run`. */
async function parsesDuring(run: () => unknown): Promise<number> {
  const before = markdownParseCount();
  await run();
  return markdownParseCount() - before;
}
/** What parseMarkdown gives, as data (documents compared as JSON). */
const asData = (p: { document?: unknown; [k: string]: unknown }) => JSON.parse(JSON.stringify(p));

describe('parse once', () => {
  it('a second read of the same body does not parse it again', async () => {
    const md = freshBody();
    expect(await parsesDuring(() => documentsOf([md]))).toBe(1);
    expect(await parsesDuring(() => documentsOf([md]))).toBe(0);
    expect(await parsesDuring(() => derivedBody(md).sections)).toBe(0);
    expect(await parsesDuring(() => parseMarkdownOffLoop(md, ['links', 'text', 'frontMatter']))).toBe(0);
    // The counter counts real parses: a body nobody read parses.
    expect(await parsesDuring(() => derivedBody(freshBody()))).toBe(1);
  });

  it('two pages with the same body share the work, in one read or in concurrent ones', async () => {
    const md = freshBody();
    expect(await parsesDuring(() => documentsOf([md, md, md]))).toBe(1);
    const large = freshBody(
      '\nParagraph of a large page, long enough to parse in a worker thread.\n'.repeat(Math.ceil(OFFLOAD_CHARS / 60)),
    );
    expect(large.length).toBeGreaterThan(OFFLOAD_CHARS);
    let both: Map<string, unknown>[] = [];
    // Off the event loop: counted once for the worker, and the second caller waits for the first's parse.
    expect(await parsesDuring(async () => (both = await Promise.all([derivedBodies([large]), derivedBodies([large])])))).toBe(1);
    expect(both[0]!.get(large)).toBe(both[1]!.get(large));
  });

  it('gives what parsing gives: document, sections, links, text, front matter, inline or off the event loop', async () => {
    const small = freshBody('\n| a | b |\n|---|---|\n| 1 | [x](../other) |\n\n![img](pic.png)\n');
    const large = freshBody('\n## More\n\nSee [the guide](../guide#start).\n'.repeat(Math.ceil(OFFLOAD_CHARS / 30)));
    const derived = await derivedBodies([small, large]);
    for (const md of [small, large]) {
      const d = derived.get(md)!;
      const parsed = parseMarkdown(md);
      expect(JSON.stringify(d.document())).toBe(JSON.stringify(parsed.document));
      expect(
        asData({
          frontMatter: d.frontMatter,
          body: d.body,
          sections: d.sections,
          links: d.links,
          text: d.text,
          unsafeLinks: d.unsafeLinks,
        }),
      ).toEqual(
        asData({
          frontMatter: parsed.frontMatter,
          body: parsed.body,
          sections: parsed.sections,
          links: parsed.links,
          text: parsed.text,
          unsafeLinks: parsed.unsafeLinks,
        }),
      );
    }
  });

  it('hands each reader its own document (reads annotate them in place)', async () => {
    const md = freshBody();
    const first = (await documentsOf([md])).get(md)!;
    (first.nodes[0] as { type: string }).type = 'changed';
    const second = (await documentsOf([md])).get(md)!;
    expect(second.nodes[0]!.type).toBe('heading-1');
    expect(JSON.stringify(second)).toBe(JSON.stringify(documentFromMarkdown(md)));
  });

  it('keeps refusals: a body over the limits reads as its source, and asking its sections refuses as parsing does', async () => {
    const big = `${'x'.repeat(MARKDOWN_MAX_BYTES)}\n# heading ${Math.random()}\n`;
    expect(await parsesDuring(() => derivedBodies([big]))).toBe(0);
    const d = derivedBody(big);
    expect(JSON.stringify(d.document())).toBe(JSON.stringify(documentFromMarkdown(big)));
    expect(() => d.sections).toThrow(MarkdownLimitError);
    await expect(parseMarkdownOffLoop(big, ['links'])).rejects.toThrow(/^markdown: must be at most/);
    const badYaml = `---\ntitle: [unclosed ${Math.random()}\n---\n\nText\n`;
    expect(() => derivedBody(badYaml).frontMatter).toThrow(/^markdown: invalid front matter/);
    expect(() => derivedBody(badYaml).document()).toThrow(/^markdown: invalid front matter/);
  });

  it('parses a written body with front matter once: the stored body (without it) is derived by the same parse', async () => {
    const samples = [
      `---\ntitle: T${Math.random()}\n---\n\n# Heading\n\nText [link][ref] and ![i](a.png).\n\n[ref]: https://example.com\n`,
      `\uFEFF# BOM ${Math.random()}\n\n- a\n- b\n`,
      `---\ndescription: d${Math.random()}\n---\n\n\n\nSetext\n===\n\n| a |\n|---|\n| 1 |\n`,
    ];
    for (const md of samples) {
      const written = derivedBody(md);
      expect(written.body).not.toBe(md);
      const stored = written.body;
      expect(await parsesDuring(() => derivedBody(stored).sections)).toBe(0);
      const fresh = parseMarkdown(stored);
      const d = derivedBody(stored);
      expect(JSON.stringify(d.document())).toBe(JSON.stringify(fresh.document));
      expect(asData({ frontMatter: d.frontMatter, body: d.body, sections: d.sections, links: d.links, text: d.text })).toEqual(
        asData({ frontMatter: fresh.frontMatter, body: fresh.body, sections: fresh.sections, links: fresh.links, text: fresh.text }),
      );
    }
    // A stripped body that could open with front matter of its own is parsed for itself.
    const nested = `---\na: 1\n---\n---\nb: ${Math.random()}\n---\nText\n`;
    const inner = derivedBody(nested).body;
    expect(inner.startsWith('---')).toBe(true);
    expect(await parsesDuring(() => derivedBody(inner))).toBe(1);
  });

  it('is bounded by bytes, dropping the least recently used body first', () => {
    const cache = new DerivationCache(200_000);
    const bodies = Array.from({ length: 40 }, () => freshBody('\nSome more text for the page.\n'.repeat(20)));
    cache.derived(bodies[0]!);
    for (const md of bodies.slice(1)) {
      cache.derived(md);
      cache.derived(bodies[0]!); // kept in use
      expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    }
    expect(cache.size).toBeLessThan(bodies.length);
    expect(cache.size).toBeGreaterThan(1);
    expect(parsesDuringSync(() => cache.derived(bodies[0]!))).toBe(0);
    expect(parsesDuringSync(() => cache.derived(bodies[1]!))).toBe(1);
    // A body bigger than a quarter of the cache is derived, not kept.
    const huge = freshBody('\nA paragraph of a page far bigger than this small cache allows.\n'.repeat(400));
    cache.derived(huge);
    expect(parsesDuringSync(() => cache.derived(huge))).toBe(1);
    // The process's cache has a bound too.
    expect(bodyCache.bytes).toBeLessThanOrEqual(bodyCache.maxBytes);
  });
});

function parsesDuringSync(run: () => unknown): number {
  const before = markdownParseCount();
  run();
  return markdownParseCount() - before;
}
