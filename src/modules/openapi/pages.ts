import GithubSlugger from 'github-slugger';
import type { Filesystem } from './process.js';

/**
 * Pages computed from a processed spec, as GitBook's `builtin:openapi` computed content lays them
 * out: one page per tag (`props: { doc: 'operations', page: <tag> }`) listing the tag's operations
 * (untagged ones on a "Other operations" page), and a "Models" page (`{ doc: 'models' }`) when the
 * spec declares schemas. Each page is Markdown (the format Lectern's content store keeps).
 * `$ref`s are followed through the version's filesystem, across files.
 */
export interface ComputedPage {
  title: string;
  slug: string;
  description: string | null;
  markdown: string;
  /** `{ doc, page? }`: the computed-content props that produce this page. */
  props: { doc: 'operations'; page: string } | { doc: 'models' };
  operations: { method: string; path: string }[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows `$ref`s (to the end of a chain, at most 20 hops) through the filesystem's files. */
function resolver(fs: Filesystem) {
  const at = (doc: unknown, pointer: string): unknown => {
    let node = doc;
    for (const raw of pointer.split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObj(node) && !Array.isArray(node)) return undefined;
      node = (node as Obj)[key];
    }
    return node;
  };
  return function resolve(node: unknown, uri: string): { node: unknown; uri: string } {
    let current = { node, uri };
    for (let hop = 0; hop < 20 && isObj(current.node) && typeof current.node.$ref === 'string'; hop++) {
      const ref: string = current.node.$ref;
      const i = ref.indexOf('#');
      const path = i < 0 ? ref : ref.slice(0, i);
      const pointer = i < 0 ? '' : ref.slice(i + 1);
      let target = current.uri;
      if (path) {
        try {
          const url = new URL(path, current.uri);
          url.hash = '';
          target = url.href;
        } catch {
          return current;
        }
      }
      const file = fs.files[target];
      if (!file) return current;
      current = { node: pointer ? at(file.specification, pointer) : file.specification, uri: target };
    }
    return current;
  };
}

const oneLine = (s: unknown) => (typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '');
const cell = (s: unknown) => oneLine(s).replace(/\|/g, '\\|');

function schemaName(schema: unknown, resolve: ReturnType<typeof resolver>, uri: string): string {
  if (!isObj(schema)) return '';
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? 'object';
  const s = resolve(schema, uri).node;
  if (!isObj(s)) return '';
  if (s.type === 'array') return `${schemaName(s.items, resolve, uri) || 'any'}[]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  if (s.type) return String(s.type) + (s.format ? ` (${s.format})` : '');
  if (s.oneOf || s.anyOf) return (s.oneOf ?? s.anyOf).map((x: unknown) => schemaName(x, resolve, uri)).join(' | ');
  return 'object';
}

function operationMarkdown(
  method: string,
  path: string,
  op: Obj,
  pathItem: Obj,
  resolve: ReturnType<typeof resolver>,
  uri: string,
  swagger: boolean,
): string {
  const lines = [`## ${oneLine(op.summary) || `${method.toUpperCase()} ${path}`}`, '', `\`${method.toUpperCase()} ${path}\``];
  if (op.deprecated) lines.push('', '> Deprecated.');
  if (typeof op.description === 'string' && op.description.trim()) lines.push('', op.description.trim());
  const params = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(op.parameters) ? op.parameters : []),
  ]
    .map((p) => resolve(p, uri).node)
    .filter(isObj);
  const plain = params.filter((p) => p.in !== 'body' && p.in !== 'formData');
  if (plain.length) {
    lines.push('', '| Parameter | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |');
    for (const p of plain) {
      const type = swagger ? String(p.type ?? schemaName(p.schema, resolve, uri)) : schemaName(p.schema, resolve, uri);
      lines.push(`| \`${cell(p.name)}\` | ${cell(p.in)} | ${cell(type)} | ${p.required ? 'yes' : 'no'} | ${cell(p.description)} |`);
    }
  }
  const body = swagger ? params.find((p) => p.in === 'body') : (resolve(op.requestBody, uri).node as Obj | undefined);
  if (isObj(body)) {
    const types = swagger
      ? [`application/json: ${schemaName(body.schema, resolve, uri)}`]
      : Object.entries(isObj(body.content) ? body.content : {}).map(
          ([type, media]) => `${type}: ${schemaName((media as Obj)?.schema, resolve, uri)}`,
        );
    lines.push(
      '',
      `**Request body**${body.required ? ' (required)' : ''}${oneLine(body.description) ? `: ${oneLine(body.description)}` : ''}`,
    );
    for (const t of types) lines.push(`- ${t}`);
  }
  const responses = isObj(op.responses) ? Object.entries(op.responses) : [];
  if (responses.length) {
    lines.push('', '| Status | Description |', '| --- | --- |');
    for (const [status, raw] of responses)
      lines.push(`| ${cell(status)} | ${cell((resolve(raw, uri).node as Obj | undefined)?.description)} |`);
  }
  return lines.join('\n');
}

export function specPages(filesystem: unknown): ComputedPage[] {
  const fs = filesystem as Filesystem;
  const entry = fs?.files?.[fs.entrypoint];
  if (!entry) return [];
  const resolve = resolver(fs);
  const doc = entry.specification as Obj;
  const swagger = fs.specification === 'swagger';
  const tagInfo = new Map<string, Obj>((Array.isArray(doc.tags) ? doc.tags : []).filter(isObj).map((t: Obj) => [String(t.name), t]));
  const groups = new Map<string, { method: string; path: string; markdown: string }[]>();
  for (const name of tagInfo.keys()) groups.set(name, []);
  const OTHER = 'Other operations';
  for (const [path, rawItem] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    const { node: item, uri } = resolve(rawItem, fs.entrypoint);
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = resolve(item[method], uri).node;
      if (!isObj(op) || op['x-internal'] === true || op['x-gitbook-ignore'] === true) continue;
      const tag = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : OTHER;
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, markdown: operationMarkdown(method, path, op, item, resolve, uri, swagger) });
    }
  }
  const slugger = new GithubSlugger();
  const pages: ComputedPage[] = [];
  for (const [tag, operations] of groups) {
    if (!operations.length) continue;
    const info = tagInfo.get(tag);
    const description = oneLine(info?.description) || null;
    pages.push({
      title: oneLine(info?.['x-page-title']) || tag,
      slug: slugger.slug(tag),
      description,
      markdown: [...(description ? [description, ''] : []), operations.map((o) => o.markdown).join('\n\n')].join('\n'),
      props: { doc: 'operations', page: tag },
      operations: operations.map(({ method, path }) => ({ method, path })),
    });
  }
  const schemas = swagger ? doc.definitions : isObj(doc.components) ? doc.components.schemas : undefined;
  if (isObj(schemas) && Object.keys(schemas).length) {
    const markdown = Object.entries(schemas)
      .map(([name, raw]) => {
        const s = resolve(raw, fs.entrypoint).node as Obj | undefined;
        const props = isObj(s?.properties) ? Object.entries(s!.properties as Obj) : [];
        const required = new Set(Array.isArray(s?.required) ? s!.required : []);
        const rows = props.map(
          ([p, ps]) =>
            `| \`${cell(p)}\` | ${cell(schemaName(ps, resolve, fs.entrypoint))} | ${required.has(p) ? 'yes' : 'no'} | ${cell((ps as Obj)?.description)} |`,
        );
        return [
          `## ${name}`,
          ...(oneLine(s?.description) ? ['', oneLine(s?.description)] : []),
          ...(rows.length ? ['', '| Property | Type | Required | Description |', '| --- | --- | --- | --- |', ...rows] : []),
        ].join('\n');
      })
      .join('\n\n');
    pages.push({ title: 'Models', slug: slugger.slug('models'), description: null, markdown, props: { doc: 'models' }, operations: [] });
  }
  return pages;
}
