import { describe, expect, it } from 'vitest';
import { readRepository, writeRepository, type RepoFile } from '../../src/modules/git-sync/repository-layout.js';
import { REPO, repoFiles } from './repo-fixture.js';

const asMap = (files: RepoFile[]) => new Map(files.map((f) => [f.path, Buffer.from(f.data).toString('base64')]));

describe('Git repository layout', () => {
  const layout = readRepository(repoFiles(REPO));

  it('reads .gitbook.yaml, SUMMARY.md (groups, nesting, link pages), front matter, files and links', () => {
    expect(layout.config).toMatchObject({
      root: 'docs',
      readme: 'README.md',
      summary: 'SUMMARY.md',
      redirects: { 'old/setup': 'getting-started/install.md' },
    });
    const byTitle = new Map(layout.pages.map((p) => [p.title, p]));
    expect(layout.pages.map((p) => p.title)).toEqual([
      'Introduction',
      'Getting started',
      'Install',
      'On Linux',
      'Configure',
      'API reference',
      'Authentication',
      'Errors & limits',
      'Status page',
      'Guides',
      'Writing [advanced] docs',
    ]);
    expect(byTitle.get('Introduction')).toMatchObject({
      parent: null,
      type: 'document',
      description: 'What Lectern is and how to start.',
      icon: 'book',
      path: 'README.md',
    });
    expect(byTitle.get('On Linux')!.parent).toBe(byTitle.get('Install')!.id);
    expect(byTitle.get('Install')).toMatchObject({ hidden: true, slug: 'install', parent: byTitle.get('Getting started')!.id });
    expect(byTitle.get('Getting started')!.slug).toBe('getting-started');
    expect(byTitle.get('API reference')).toMatchObject({ type: 'group', parent: null });
    expect(byTitle.get('Authentication')!.parent).toBe(byTitle.get('API reference')!.id);
    expect(byTitle.get('Status page')).toMatchObject({ type: 'link', href: 'https://status.example.com' });
    expect(layout.files.map((f) => [f.name, f.contentType, f.path])).toEqual([
      ['diagram.png', 'image/png', '.gitbook/assets/diagram.png'],
      ['schema.json', 'application/json', '.gitbook/assets/schema.json'],
    ]);
    const png = layout.files[0]!;
    const intro = byTitle.get('Introduction')!.markdown!;
    expect(intro.startsWith('# Introduction\n')).toBe(true); // front matter out
    expect(intro).toContain(`[the install guide](/pages/${byTitle.get('Install')!.id}#requirements)`);
    expect(intro).toContain(`![Architecture](/files/${png.id})`);
    expect(byTitle.get('On Linux')!.markdown).toContain(`<img src="/files/${png.id}"`);
    expect(byTitle.get('Configure')!.markdown).toContain(`[auth]: /pages/${byTitle.get('Authentication')!.id}`);
    // Code is not rewritten; the page outside the docs root is not read.
    expect(byTitle.get('Install')!.markdown).toContain('[not a link](nowhere.md)');
    expect(layout.skipped).toEqual([]);
    expect(byTitle.get('Errors & limits')).toMatchObject({
      description: 'Codes and limits.',
      frontMatter: {
        order: ['layout', 'x-owner', 'description'],
        extra: { layout: { title: { visible: true }, outline: { visible: false } }, 'x-owner': 'team-api' },
      },
    });
    // .gitbook/includes/*.md: reusable contents, not pages; their links become id references too.
    expect(layout.includes!.map((i) => [i.slug, i.title])).toEqual([
      ['footer', 'Footer'],
      ['support', 'Support banner'],
    ]);
    expect(layout.includes![1]!.markdown).toBe(
      `Stuck? See [the errors](/pages/${byTitle.get('Errors & limits')!.id}#top) and ![the diagram](/files/${png.id}).\n`,
    );
    expect(intro).toContain('{% include ".gitbook/includes/support.md" %}');
  });

  it('writes the same repository back, byte for byte', () => {
    const written = writeRepository(layout);
    const expected = new Map(asMap(repoFiles(REPO)));
    expected.delete('package.json'); // outside the docs folder: not the space's
    expect(asMap(written)).toEqual(expected);
  });

  it('keeps page and file ids by path on a re-import, and derives GitBook paths for new pages', () => {
    const known = {
      pages: Object.fromEntries(layout.pages.filter((p) => p.path).map((p) => [p.path!, p.id])),
      files: Object.fromEntries(layout.files.map((f) => [f.path!, f.id])),
      includes: Object.fromEntries(layout.includes!.map((i) => [i.slug, i.id])),
    };
    const again = readRepository(repoFiles(REPO), { known });
    expect(again.pages.filter((p) => p.path).map((p) => p.id)).toEqual(layout.pages.filter((p) => p.path).map((p) => p.id));
    expect(again.includes!.map((i) => i.id)).toEqual(layout.includes!.map((i) => i.id));
    // A new page (no remembered path) under "Guides" and one under "Configure".
    const guides = layout.pages.find((p) => p.title === 'Guides')!;
    const configure = layout.pages.find((p) => p.title === 'Configure')!;
    // Unknown keys survive an edit of the known ones (the description changed in Lectern, the layout kept).
    const errors = layout.pages.find((p) => p.title === 'Errors & limits')!;
    const edited = writeRepository({
      ...layout,
      pages: layout.pages.map((p) => (p.id === errors.id ? { ...p, description: 'Edited.' } : p)),
    }).find((f) => f.path === 'docs/api-reference/errors.md')!;
    expect(Buffer.from(edited.data).toString()).toBe(
      (REPO['docs/api-reference/errors.md'] as string).replace('Codes and limits.', 'Edited.'),
    );
    const pages = [
      ...layout.pages,
      {
        id: 'newpage1',
        parent: guides.id,
        type: 'document' as const,
        title: 'Deploying',
        slug: 'deploying',
        markdown: `# Deploying\n\nSee [configure](/pages/${configure.id}).\n`,
      },
      { id: 'newpage2', parent: configure.id, type: 'document' as const, title: 'TLS', slug: 'tls', markdown: '# TLS\n' },
    ];
    const out = new Map(writeRepository({ ...layout, pages }).map((f) => [f.path, Buffer.from(f.data).toString()]));
    expect(out.get('docs/guides/deploying.md')).toBe('# Deploying\n\nSee [configure](../getting-started/configure.md).\n');
    expect(out.get('docs/getting-started/configure/tls.md')).toBe('# TLS\n');
    expect(out.get('docs/SUMMARY.md')).toContain(
      '* [Writing \\[advanced\\] docs](guides/advanced.md)\n* [Deploying](guides/deploying.md)\n',
    );
  });

  it('writes reusable contents made in Lectern, and include paths from where each page lands', () => {
    const guides = layout.pages.find((p) => p.title === 'Guides')!;
    const install = layout.pages.find((p) => p.title === 'Install')!;
    // A new page including the footer (written as Lectern's editor would), and Install moved below Guides.
    const pages = [
      ...layout.pages.map((p) => (p.id === install.id ? { ...p, parent: guides.id, path: undefined } : p)),
      {
        id: 'newpage3',
        parent: guides.id,
        type: 'document' as const,
        title: 'Deploying',
        slug: 'deploying',
        markdown: '# Deploying\n\n{% include ".gitbook/includes/footer.md" %}\n\n{% include "../.gitbook/includes/unknown.md" %}\n',
      },
    ];
    const includes = [
      ...layout.includes!,
      { id: 'inc3', title: 'Beta: read this', slug: 'beta-warning', markdown: `This is **beta**: see [Install](/pages/${install.id}).\n` },
    ];
    const out = new Map(writeRepository({ ...layout, pages, includes }).map((f) => [f.path, Buffer.from(f.data).toString()]));
    // An include that no longer names its file from the page's folder is written again; one of no reusable content stays as written.
    expect(out.get('docs/guides/deploying.md')).toBe(
      '# Deploying\n\n{% include "../.gitbook/includes/footer.md" %}\n\n{% include "../.gitbook/includes/unknown.md" %}\n',
    );
    expect(out.get('docs/guides/install/README.md') ?? out.get('docs/guides/install.md')).toContain(
      '{% include "../../.gitbook/includes/footer.md" %}',
    );
    expect(out.get('docs/.gitbook/includes/beta-warning.md')).toBe(
      `---\ntitle: "Beta: read this"\n---\n\nThis is **beta**: see [Install](${out.has('docs/guides/install/README.md') ? '../../guides/install/README.md' : '../../guides/install.md'}).\n`,
    );
    expect(out.get('docs/.gitbook/includes/footer.md')).toBe(REPO['docs/.gitbook/includes/footer.md']);
    // Read back: the same reusable contents.
    const back = readRepository(
      [...out].map(([path, text]) => ({ path, data: Buffer.from(text) })),
      { known: { includes: { 'beta-warning': 'inc3' } } },
    );
    expect(back.includes!.map((i) => [i.id === 'inc3', i.slug, i.title])).toEqual([
      [true, 'beta-warning', 'Beta: read this'],
      [false, 'footer', 'Footer'],
      [false, 'support', 'Support banner'],
    ]);
  });

  it('without SUMMARY.md, follows the folders (README.md is the folder page)', () => {
    const plain = readRepository(
      repoFiles({
        '.gitbook/includes/note.md': 'A note.\n',
        'README.md': '# Home\n',
        'guide/README.md': '# Guide\n',
        'guide/setup.md': '---\ntitle: Set up\n---\nText, see [home](../README.md)\n',
        'reference/api.md': '# API\n',
      }),
    );
    const titles = plain.pages.map((p) => [p.title, p.type, plain.pages.find((q) => q.id === p.parent)?.title ?? null]);
    expect(titles).toEqual([
      ['Home', 'document', null],
      ['Guide', 'document', null],
      ['Set up', 'document', 'Guide'],
      ['Reference', 'group', null],
      ['API', 'document', 'Reference'],
    ]);
    expect(plain.includes!.map((i) => i.slug)).toEqual(['note']);
    expect(plain.pages[2]!.markdown).toBe(`Text, see [home](/pages/${plain.pages[0]!.id})\n`);
  });

  it('refuses a root outside the repository and reports what it skipped', () => {
    expect(() => readRepository(repoFiles({ '.gitbook.yaml': 'root: ../../etc\n' }))).toThrow(/inside the repository/);
    const skipped = readRepository(
      repoFiles({ 'SUMMARY.md': '* [A](a.md)\n* [Gone](gone.md)\n', 'a.md': '# A\n', 'orphan.md': '# Orphan\n' }),
    ).skipped;
    expect(skipped).toEqual([
      { path: 'gone.md', reason: 'listed in SUMMARY.md but the file does not exist' },
      { path: 'orphan.md', reason: 'not listed in SUMMARY.md' },
    ]);
  });
});
