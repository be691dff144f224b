import { badRequest } from './errors.js';
import { isRole, type DefaultLevel, type RoleName } from './auth/roles.js';

/**
 * Input checks shared by every domain. Each names the field it rejects, so a 400 says what to fix.
 * GraphQL has already checked types and enums; these check lengths, formats and variants.
 */
export function text(field: string, value: string, limits: { min?: number; max: number }): string {
  const length = [...value].length;
  if (limits.min !== undefined && length < limits.min) throw badRequest(field, `must be at least ${limits.min} characters`);
  if (length > limits.max) throw badRequest(field, `must be at most ${limits.max} characters`);
  return value;
}

/** What RFC 3986 leaves out of a URI (the official schemas' `format: uri`): spaces, quotes, non-ASCII… unencoded. */
const NOT_IN_URI = /[^\x21-\x7e]|["<>\\^`{|}]/;

export function url(field: string, value: string, max = 2048): string {
  text(field, value, { max });
  if (NOT_IN_URI.test(value))
    throw badRequest(field, 'must be an absolute http(s) URL; spaces, quotes and other characters outside URLs must be percent-encoded');
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw badRequest(field, 'must be an absolute http(s) URL');
  }
  return value;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
export function domains(field: string, values: string[]): string[] {
  return values.map((d, i) => {
    const domain = d.trim().toLowerCase();
    if (!DOMAIN.test(domain)) throw badRequest(`${field}[${i}]`, `"${d}" is not a domain name`);
    return domain;
  });
}

export function role(field: string, value: unknown): RoleName | null {
  if (value === null) return null;
  if (!isRole(value)) throw badRequest(field, 'must be a role (admin, create, review, edit, comment, read) or null');
  return value;
}

export function defaultLevel(field: string, value: unknown): DefaultLevel {
  return value === 'inherit' ? 'inherit' : role(field, value);
}

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The merge rules the official schema (MergeRule) knows, each with what it needs: a list of user
 * ids, a custom expression (max 1024), or nothing. Anything else would make the resource
 * unreadable by conforming clients, so it is refused; unknown keys are dropped.
 */
export const PLAIN_MERGE_RULES = [
  'require_at_least_one_review',
  'require_all_reviews_approved',
  'require_agent_review',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
] as const;
export const MERGE_RULES_WITH_USERS = ['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass'] as const;
/** Every merge rule name, the one list (GraphQL's MergeRuleName enum is made of it). */
export const MERGE_RULE_NAMES = [...PLAIN_MERGE_RULES, ...MERGE_RULES_WITH_USERS, 'custom'] as const;
const RULES_WITH_USERS = new Set<string>(MERGE_RULES_WITH_USERS);
const PLAIN_RULES = new Set<string>(PLAIN_MERGE_RULES);

function mergeRule(at: string, rule: unknown) {
  if (!isObject(rule) || typeof rule.rule !== 'string' || !rule.rule) throw badRequest(`${at}.rule`, 'is required');
  const name = rule.rule;
  if (RULES_WITH_USERS.has(name)) {
    if (!Array.isArray(rule.users) || rule.users.some((u) => typeof u !== 'string'))
      throw badRequest(`${at}.users`, `must be an array of user ids for ${name}`);
    return { rule: name, users: rule.users as string[] };
  }
  if (PLAIN_RULES.has(name)) return { rule: name };
  if (name === 'custom') {
    if (typeof rule.expression !== 'string') throw badRequest(`${at}.expression`, 'is required for a custom rule');
    return { rule: name, expression: text(`${at}.expression`, rule.expression, { max: 1024 }) };
  }
  throw badRequest(`${at}.rule`, `"${name}" is not a known merge rule`);
}

/** Merge rules: `{type:'inherit'}` (spaces only), `{type:'none'}`, or `{type:'rules', rules:[…]}`. */
export function mergeRules(field: string, value: unknown, opts: { allowInherit: boolean }) {
  if (!isObject(value) || typeof value.type !== 'string') throw badRequest(field, 'must be an object with a type');
  switch (value.type) {
    case 'inherit':
      if (!opts.allowInherit) throw badRequest(`${field}.type`, 'inherit is only for spaces');
      return { type: 'inherit' };
    case 'none':
      return { type: 'none' };
    case 'rules':
      if (!Array.isArray(value.rules)) throw badRequest(`${field}.rules`, 'must be an array');
      return { type: 'rules', rules: value.rules.map((rule, i) => mergeRule(`${field}.rules[${i}]`, rule)) };
    default:
      throw badRequest(`${field}.type`, `"${value.type}" is not one of ${opts.allowInherit ? 'inherit, ' : ''}none, rules`);
  }
}

export function object(field: string, value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw badRequest(field, 'must be an object');
  return value;
}

/** Deepest nesting of nodes in a rich-text document. */
export const DOCUMENT_MAX_DEPTH = 32;

/**
 * Whether a JSON-like value nests deeper than `max` objects/arrays, checked with an explicit
 * stack (no recursion, so any depth is measured safely) and stopping as soon as it knows.
 */
export function jsonDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Largest rich-text document accepted (its JSON), e.g. instructions. */
export const DOCUMENT_MAX_CHARS = 200_000;

/**
 * A rich-text document (the official JSONDocument): `{ object: 'document', data: {…}, nodes }`
 * whose nodes are blocks; a block holds blocks, inlines and texts; an inline holds inlines and
 * texts; a text holds leaves `{ object: 'leaf', text, marks: [{ object: 'mark', type }] }`.
 * Blocks and inlines need a `type`; tables and expandables keep their content in `fragments`.
 */
export function richTextDocument(field: string, value: unknown): Record<string, unknown> {
  // First, without recursion: JSON.stringify and the walk below would overflow the stack on a
  // document nested thousands deep (a 500). A node level is two JSON levels (node, nodes array).
  if (jsonDeeperThan(value, 2 * DOCUMENT_MAX_DEPTH + 8))
    throw badRequest(field, `is nested too deeply (at most ${DOCUMENT_MAX_DEPTH} levels of nodes)`);
  const doc = object(field, value);
  if (doc.object !== 'document') throw badRequest(`${field}.object`, 'must be "document"');
  if (!isObject(doc.data)) throw badRequest(`${field}.data`, 'must be an object');
  if (doc.data.schemaVersion !== undefined && !Number.isInteger(doc.data.schemaVersion))
    throw badRequest(`${field}.data.schemaVersion`, 'must be an integer');
  if (!Array.isArray(doc.nodes)) throw badRequest(`${field}.nodes`, 'must be an array');
  if (JSON.stringify(doc).length > DOCUMENT_MAX_CHARS) throw badRequest(field, `must be at most ${DOCUMENT_MAX_CHARS} characters of JSON`);
  doc.nodes.forEach((n, i) => documentNode(`${field}.nodes[${i}]`, n, ['block'], 1));
  return doc;
}

function documentNode(at: string, value: unknown, allowed: readonly string[], depth: number): void {
  if (depth > DOCUMENT_MAX_DEPTH) throw badRequest(at, 'is nested too deeply');
  if (!isObject(value)) throw badRequest(at, 'must be a node object');
  const kind = value.object as string;
  if (!allowed.includes(kind)) throw badRequest(`${at}.object`, `must be ${allowed.map((a) => `"${a}"`).join(' or ')}`);
  if (kind === 'text') {
    if (!Array.isArray(value.leaves)) throw badRequest(`${at}.leaves`, 'must be an array');
    value.leaves.forEach((leaf, i) => {
      const l = `${at}.leaves[${i}]`;
      if (!isObject(leaf) || leaf.object !== 'leaf') throw badRequest(`${l}.object`, 'must be "leaf"');
      if (typeof leaf.text !== 'string') throw badRequest(`${l}.text`, 'must be a string');
      if (!Array.isArray(leaf.marks)) throw badRequest(`${l}.marks`, 'must be an array');
      leaf.marks.forEach((mark, j) => {
        if (!isObject(mark) || mark.object !== 'mark' || typeof mark.type !== 'string')
          throw badRequest(`${l}.marks[${j}]`, 'must be a mark { object: "mark", type }');
      });
    });
    return;
  }
  if (typeof value.type !== 'string' || !value.type) throw badRequest(`${at}.type`, 'is required');
  if (value.data !== undefined && !isObject(value.data)) throw badRequest(`${at}.data`, 'must be an object');
  const children = kind === 'block' ? ['block', 'inline', 'text'] : ['inline', 'text'];
  if (value.nodes !== undefined) {
    if (!Array.isArray(value.nodes)) throw badRequest(`${at}.nodes`, 'must be an array');
    value.nodes.forEach((n, i) => documentNode(`${at}.nodes[${i}]`, n, children, depth + 1));
  }
  if (value.fragments !== undefined) {
    if (!Array.isArray(value.fragments)) throw badRequest(`${at}.fragments`, 'must be an array');
    value.fragments.forEach((fragment, i) => {
      const f = `${at}.fragments[${i}]`;
      if (!isObject(fragment) || fragment.object !== 'fragment' || !Array.isArray(fragment.nodes))
        throw badRequest(f, 'must be a fragment { object: "fragment", nodes }');
      fragment.nodes.forEach((n, j) => documentNode(`${f}.nodes[${j}]`, n, ['block'], depth + 1));
    });
  }
}
