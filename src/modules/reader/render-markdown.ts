import GithubSlugger from 'github-slugger';
import type * as H from 'hast';
import { toHtml } from 'hast-util-to-html';
import type { createLowlight } from 'lowlight';
import type * as M from 'mdast';
import { toHast } from 'mdast-util-to-hast';
import { toString as mdastToString } from 'mdast-util-to-string';
import { markdownProblem, markdownTree, withoutTitleHeading } from '../../document/index.js';

/**
 * A page's Markdown → the HTML of the reader's site, through the Markdown parser every other read
 * uses (src/document: unified + remark, GFM, front matter) and the unified HTML tools
 * (mdast-util-to-hast, hast-util-to-html), code highlighted by lowlight (highlight.js grammars,
 * all in-process: no asset from a CDN).
 *
 * - Raw HTML in a page is shown as text (`<script>` reads as `<script>`), never passed through;
 *   link and image URLs other than http(s), mailto, tel and relative ones are dropped.
 * - Headings get ids (github-slugger, as the document's `meta.id`) and an anchor link; the outline
 *   is made of them.
 * - Links and images are resolved by the caller (`link`): to a page URL of the site, a file's
 *   download URL, kept as written, or marked broken.
 * - Hints: GitBook's `{% hint style="info|success|warning|danger" %}…{% endhint %}` and GitHub's
 *   `> [!NOTE]` alerts become `<aside class="hint hint-…">`.
 * - `{{ variables.x }}` are replaced before parsing (`variables`), and reusable contents included
 *   with `{% include ".gitbook/includes/<slug>.md" %}` are expanded (`reusable`: slug → Markdown).
 */

export interface OutlineItem {
  id: string;
  text: string;
  depth: number;
}

export type LinkTarget = { href: string; external?: boolean } | { broken: true };

export interface RenderInput {
  markdown: string;
  /** The page's title, shown above the body: a leading level-1 heading that repeats it is left out. */
  title?: string;
  variables: Record<string, string>;
  reusable: Map<string, string>;
  /** Resolves a link or image URL written in the page. */
  link(url: string, image: boolean): LinkTarget;
}

// lowlight and its grammars (~5 MB) load with the first page rendered (`loadHighlighter`), not
// with the server: a server that never renders a reader page keeps none of it.
let lowlight: ReturnType<typeof createLowlight> | undefined;
let loading: Promise<void> | undefined;
/** Loads the code highlighter once; `renderMarkdown` highlights only once it has loaded. */
export function loadHighlighter(): Promise<void> {
  return (loading ??= import('lowlight').then((m) => {
    lowlight = m.createLowlight(m.common);
  }));
}
const ALIASES: Record<string, string> = {
  js: 'javascript',
  ts: 'typescript',
  sh: 'bash',
  shell: 'bash',
  yml: 'yaml',
  py: 'python',
  rb: 'ruby',
  html: 'xml',
  md: 'markdown',
};

const VARIABLE = /\{\{\s*(?:space\.)?(?:vars|variables)\.([\w-]+)\s*\}\}/g;
export const INCLUDE = /^\{%\s*include\s+"(?:[^"]*\/)?\.gitbook\/includes\/([^"/]+)\.md"\s*%\}$/;
const HINT_START = /^\{%\s*hint(?:\s+style\s*=\s*"(\w+)")?\s*%\}$/;
const HINT_END = /^\{%\s*endhint\s*%\}$/;
const HINT_STYLES = new Set(['info', 'success', 'warning', 'danger']);
const ALERTS: Record<string, string> = { NOTE: 'info', TIP: 'success', IMPORTANT: 'info', WARNING: 'warning', CAUTION: 'danger' };

export const evaluateVariables = (markdown: string, variables: Record<string, string>) =>
  markdown.replace(VARIABLE, (m, name: string) => variables[name] ?? m);

/** Slugs of the reusable contents a page includes (to fetch their bodies before rendering). */
export function includedSlugs(markdown: string): string[] {
  const slugs = new Set<string>();
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    const m = INCLUDE.exec(line.trim());
    if (m) slugs.add(m[1]!);
  }
  return [...slugs];
}

/** Puts GitBook block tags (`{% hint %}`, `{% endhint %}`, `{% include %}`) in paragraphs of their own (outside code fences). */
function isolateBlockTags(markdown: string): string {
  let fence: string | null = null;
  const out: string[] = [];
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === null || f[0] === fence[0])) fence = fence === null ? f : null;
    const t = line.trim();
    if (fence === null && !f && (HINT_START.test(t) || HINT_END.test(t) || INCLUDE.test(t))) out.push('', t, '');
    else out.push(line);
  }
  return out.join('\n');
}

const paragraphText = (node: M.RootContent) => (node.type === 'paragraph' ? mdastToString(node).trim() : null);

function hintNode(style: string, children: M.RootContent[]): M.Blockquote {
  const kind = HINT_STYLES.has(style) ? style : 'info';
  return {
    type: 'blockquote',
    children: children as M.BlockContent[],
    data: { hName: 'aside', hProperties: { className: ['hint', `hint-${kind}`], role: 'note' } },
  };
}

/** Expands includes and groups hint tags into hint blocks, in one list of blocks. */
function blocks(children: M.RootContent[], input: RenderInput, depth: number): M.RootContent[] {
  const out: M.RootContent[] = [];
  const stack: { style: string; items: M.RootContent[] }[] = [];
  const push = (n: M.RootContent) => (stack.length ? stack[stack.length - 1]!.items : out).push(n);
  for (const child of children) {
    const text = paragraphText(child);
    const start = text !== null ? HINT_START.exec(text) : null;
    if (start) {
      stack.push({ style: start[1] ?? 'info', items: [] });
      continue;
    }
    if (text !== null && HINT_END.test(text) && stack.length) {
      const done = stack.pop()!;
      push(hintNode(done.style, done.items));
      continue;
    }
    const include = text !== null ? INCLUDE.exec(text) : null;
    const included = include ? input.reusable.get(include[1]!) : undefined;
    if (included !== undefined && depth < 3) {
      for (const n of parse(included, input, depth + 1)) push(n);
      continue;
    }
    if (child.type === 'blockquote') {
      const first = child.children[0];
      const alert =
        first?.type === 'paragraph' && first.children[0]?.type === 'text'
          ? /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/.exec(first.children[0].value)
          : null;
      if (alert) {
        const rest = (first as M.Paragraph).children[0] as M.Text;
        rest.value = rest.value.slice(alert[0].length);
        if (!mdastToString(first!).trim()) child.children.shift();
        push(hintNode(ALERTS[alert[1]!]!, child.children));
        continue;
      }
    }
    push(child);
  }
  // An unclosed hint keeps its content, as a hint.
  while (stack.length) {
    const done = stack.pop()!;
    push(hintNode(done.style, done.items));
  }
  return out;
}

function parse(markdown: string, input: RenderInput, depth: number): M.RootContent[] {
  const source = isolateBlockTags(evaluateVariables(markdown, input.variables));
  if (markdownProblem(source)) return [{ type: 'code', lang: 'markdown', value: source }];
  const root = markdownTree(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
  return blocks(
    root.children.filter((n) => n.type !== 'yaml'),
    input,
    depth,
  );
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);
const SAFE_URL = /^(https?:|mailto:|tel:)/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

type AnyNode = M.Nodes;
function walk(
  node: AnyNode,
  visit: (node: AnyNode, parent: AnyNode | null, index: number) => AnyNode | void,
  parent: AnyNode | null = null,
  index = 0,
) {
  const replaced = visit(node, parent, index);
  if (replaced && parent && 'children' in parent) (parent.children as AnyNode[])[index] = replaced;
  const current = replaced ?? node;
  if ('children' in current) (current.children as AnyNode[]).forEach((child, i) => walk(child, visit, current, i));
}

export function renderMarkdown(input: RenderInput): { html: string; outline: OutlineItem[] } {
  const parsed = parse(input.markdown, input, 0);
  const root: M.Root = { type: 'root', children: input.title === undefined ? parsed : withoutTitleHeading(parsed, input.title) };
  const definitions = new Map<string, M.Definition>();
  walk(root, (node) => {
    if (node.type === 'definition') definitions.set(node.identifier.toLowerCase(), node);
  });
  const slugger = new GithubSlugger();
  const outline: OutlineItem[] = [];
  const resolve = (url: string, image: boolean): LinkTarget => {
    const trimmed = url.trim();
    if (!trimmed) return { broken: true };
    if (SCHEME.test(trimmed) && !SAFE_URL.test(trimmed)) return { broken: true };
    return input.link(trimmed, image);
  };
  walk(root, (node, parent) => {
    switch (node.type) {
      case 'html':
        // Raw HTML is shown as text, never run (a block of it as a paragraph of text).
        if (parent && BLOCK_PARENTS.has(parent.type)) return { type: 'paragraph', children: [{ type: 'text', value: node.value }] };
        return { type: 'text', value: node.value };
      case 'heading': {
        const text = mdastToString(node);
        const id = slugger.slug(text);
        node.data = { ...node.data, hProperties: { ...node.data?.hProperties, id } };
        if (node.depth <= 3) outline.push({ id, text, depth: node.depth });
        node.children.push({
          type: 'link',
          url: `#${id}`,
          children: [{ type: 'text', value: '#' }],
          data: { hProperties: { className: ['anchor'], ariaLabel: `Link to ${text}` } },
        } as M.Link);
        return;
      }
      case 'linkReference':
      case 'imageReference': {
        const def = definitions.get(node.identifier.toLowerCase());
        if (!def) return;
        if (node.type === 'linkReference') return { type: 'link', url: def.url, title: def.title, children: node.children } as M.Link;
        return { type: 'image', url: def.url, title: def.title, alt: node.alt } as M.Image;
      }
      default:
        return;
    }
  });
  walk(root, (node) => {
    if (node.type === 'link') {
      if ((node.data?.hProperties as { className?: string[] } | undefined)?.className?.includes('anchor')) return;
      const target = resolve(node.url, false);
      if ('href' in target) {
        node.url = target.href;
        if (target.external) node.data = { hProperties: { rel: ['noopener', 'noreferrer'] } };
      } else {
        return {
          type: 'emphasis',
          children: node.children,
          data: { hName: 'span', hProperties: { className: ['broken-link'], title: `Broken link: ${node.url}` } },
        } as M.Emphasis;
      }
    } else if (node.type === 'image') {
      const target = resolve(node.url, true);
      if ('href' in target) {
        node.url = target.href;
        node.data = { hProperties: { loading: 'lazy' } };
      } else {
        return {
          type: 'emphasis',
          children: [{ type: 'text', value: node.alt || node.url }],
          data: { hName: 'span', hProperties: { className: ['broken-link', 'broken-image'], title: `Missing image: ${node.url}` } },
        } as M.Emphasis;
      }
    }
    return;
  });

  const hast = toHast(root, { allowDangerousHtml: false }) as H.Root;
  enhance(hast);
  return { html: toHtml(hast), outline };
}

/** Code highlighting, scrollable tables. */
function enhance(tree: H.Root) {
  const visit = (node: H.Root | H.Element) => {
    node.children.forEach((child, i) => {
      if (child.type !== 'element') return;
      if (child.tagName === 'pre') {
        const code = child.children.find((c): c is H.Element => c.type === 'element' && c.tagName === 'code');
        const classes = (code?.properties.className as string[] | undefined) ?? [];
        const lang = classes
          .find((c) => c.startsWith('language-'))
          ?.slice('language-'.length)
          .toLowerCase();
        const name = lang ? (ALIASES[lang] ?? lang) : undefined;
        if (code && name && lowlight?.registered(name)) {
          const text = code.children.map((c) => (c.type === 'text' ? c.value : '')).join('');
          code.children = lowlight!.highlight(name, text).children as H.ElementContent[];
          code.properties.className = [...classes, 'hljs'];
        }
        child.properties.dataLang = lang ?? null;
        return;
      }
      if (child.tagName === 'table') {
        node.children[i] = { type: 'element', tagName: 'div', properties: { className: ['table-wrap'] }, children: [child] };
        return;
      }
      visit(child);
    });
  };
  visit(tree);
}
