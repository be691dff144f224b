import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Validates response bodies against the official GitBook OpenAPI descriptions: @gitbook/api@0.202.0
 * (OpenAPI 3.1, JSON Schema 2020-12; the dev dependency `gitbook-api-0202` is an npm alias of it) and
 * @gitbook/api@0.146.0 (OpenAPI 3.0, `nullable`). An operation is matched by operationId in each:
 * a body must satisfy every description that documents the operation with that status. Operations
 * 0.202.0 dropped (the links/backlinks routes, the organization conversations routes, transferSpace,
 * removeSectionFromGroup, …: none was renamed, no 0.202.0 operation has their method and path) are
 * still checked against 0.146.0; operations new in 0.202.0 against 0.202.0 only.
 */
const require = createRequire(import.meta.url);

/** OpenAPI 3.0 `nullable` without a `type` (allowed there, refused by Ajv) becomes `anyOf [schema, null]`. */
function normalizeNullable(node: any): any {
  if (Array.isArray(node)) return node.map(normalizeNullable);
  if (!node || typeof node !== 'object') return node;
  const out: any = {};
  for (const [k, v] of Object.entries(node)) out[k] = normalizeNullable(v);
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    const { description, ...rest } = out;
    return { ...(description ? { description } : {}), anyOf: [rest, { type: 'null' }] };
  }
  return out;
}

interface Description {
  version: string;
  spec: any;
  ajv: Ajv;
  operations: Map<string, { path: string; method: string; op: any }>;
}

/**
 * A page_edited change's `attributes` is a oneOf of the document, group and link attribute sets,
 * which share their properties (title, emoji, slug) and forbid none: every non-empty object matches
 * at least two, so no answer could ever satisfy the oneOf. Checked as the anyOf it means.
 */
function unambiguous(spec: any): any {
  const attributes = spec.components?.schemas?.RevisionSemanticChangePageEdited?.properties?.attributes;
  if (attributes?.oneOf) {
    attributes.anyOf = attributes.oneOf;
    delete attributes.oneOf;
  }
  return spec;
}

function load(version: string, spec: any, ajv: Ajv): Description {
  unambiguous(spec);
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat('emoji', true);
  ajv.addFormat('icon', true);
  ajv.addSchema({ ...spec, $id: 'openapi' });
  const operations = new Map<string, { path: string; method: string; op: any }>();
  for (const [path, item] of Object.entries<any>(spec.paths)) {
    for (const [method, op] of Object.entries<any>(item)) if (op?.operationId) operations.set(op.operationId, { path, method, op });
  }
  return { version, spec, ajv, operations };
}

const options = { strict: false, allErrors: true, validateSchema: false, discriminator: false } as const;
/** Newest first: error messages name 0.202.0's verdict before 0.146.0's. */
const descriptions: Description[] = [
  load('0.202.0', structuredClone(require('gitbook-api-0202/spec/openapi.json')), new Ajv2020(options) as unknown as Ajv),
  load('0.146.0', normalizeNullable(structuredClone(require('@gitbook/api/spec/openapi.json'))), new Ajv(options)),
];

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** The descriptions that have the operation (0.202.0 first); throws when none has it. */
function describing(operationId: string) {
  const found = descriptions.flatMap((d) => {
    const operation = d.operations.get(operationId);
    return operation ? [{ description: d, ...operation }] : [];
  });
  if (!found.length)
    throw new Error(`no operation ${operationId} in the official descriptions (${descriptions.map((d) => d.version).join(', ')})`);
  return found;
}

const cache = new Map<string, ValidateFunction>();

function responseValidator(d: Description, path: string, method: string, op: any, status: string): ValidateFunction {
  const key = `${d.version} ${op.operationId} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    let response = op.responses[status];
    let ref = `openapi#/${pointer('paths', path, method, 'responses', status)}`;
    if (response.$ref) {
      ref = `openapi${response.$ref}`;
      response = d.spec.components.responses[response.$ref.split('/').pop()];
    }
    if (!response.content?.['application/json']) {
      validate = ((b: unknown) => b === undefined || b === null || b === '') as unknown as ValidateFunction;
    } else {
      validate = d.ajv.compile({ $ref: `${ref}/${pointer('content', 'application/json', 'schema')}` });
    }
    cache.set(key, validate);
  }
  return validate;
}

/** The statuses any official description documents for an operation. */
export function documentedStatuses(operationId: string): string[] {
  return [...new Set(describing(operationId).flatMap(({ op }) => Object.keys(op.responses)))];
}

/**
 * Throws with Ajv's errors when `body` does not match the operation's response schema for `status`
 * in every official description that documents that status (and when none documents it).
 */
export function assertMatchesSpec(operationId: string, status: number, body: unknown) {
  const found = describing(operationId);
  const documenting = found.filter(({ op }) => op.responses[String(status)]);
  if (!documenting.length) {
    throw new Error(
      `${operationId} does not document status ${status} (${found.map(({ description, op }) => `${description.version} has ${Object.keys(op.responses).join(', ')}`).join('; ')})`,
    );
  }
  for (const { description, path, method, op } of documenting) {
    const validate = responseValidator(description, path, method, op, String(status));
    if (!validate(body)) {
      throw new Error(
        `${operationId} ${status}: body does not match the official schema of @gitbook/api@${description.version}:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}\nbody: ${JSON.stringify(body).slice(0, 1500)}`,
      );
    }
  }
}

/**
 * The official request bodies an operation's body is checked against: for each description that
 * has the operation with a JSON request body, its validator. Empty when none describes a body.
 */
function requestValidators(operationId: string) {
  return describing(operationId).flatMap(({ description, path, method, op }) => {
    if (!op.requestBody) return [];
    let ref = `openapi#/${pointer('paths', path, method, 'requestBody')}`;
    let body = op.requestBody;
    if (body.$ref) {
      ref = `openapi${body.$ref}`;
      body = description.spec.components.requestBodies[body.$ref.split('/').pop()];
    }
    if (!body.content?.['application/json']) return [];
    const key = `${description.version} ${operationId} request`;
    let validate = cache.get(key);
    if (!validate) {
      validate = description.ajv.compile({ $ref: `${ref}/${pointer('content', 'application/json', 'schema')}` });
      cache.set(key, validate);
    }
    return [{ version: description.version, validate }];
  });
}

const withoutNulls =
  (...fields: string[]) =>
  (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([key, value]) => !(fields.includes(key) && value === null)));

/**
 * What Lectern accepts beyond an official request body, on purpose (each decided in its service and
 * tested there): null clears these optional fields, which the official bodies only set; an OpenAPI
 * spec's slug may come in any case (it is kept in lower case). The body is checked as if it had
 * used the official form; anything else beyond the official body fails the check.
 */
const REQUEST_ADDITIONS: Record<string, (body: Record<string, unknown>) => Record<string, unknown>> = {
  updateChangeRequestById: withoutNulls('subject', 'description'),
  updateCollectionById: withoutNulls('description'),
  updateOrganizationById: withoutNulls('hostname'),
  updateSpaceById: withoutNulls('language'),
  updateOrganizationSAMLProvider: withoutNulls('defaultTeam', 'defaultRole'),
  createOpenAPISpec: (body) => (typeof body.slug === 'string' ? { ...body, slug: body.slug.toLowerCase() } : body),
};

/** Throws with Ajv's errors when a request body the server accepted is not one the official descriptions allow. */
export function assertRequestMatchesSpec(operationId: string, requestBody: unknown) {
  const addition = REQUEST_ADDITIONS[operationId];
  const body =
    addition && requestBody && typeof requestBody === 'object' && !Array.isArray(requestBody)
      ? addition(requestBody as Record<string, unknown>)
      : requestBody;
  for (const { version, validate } of requestValidators(operationId)) {
    if (!validate(body)) {
      throw new Error(
        `${operationId}: request body does not match the official schema of @gitbook/api@${version}:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}\nbody: ${JSON.stringify(body).slice(0, 1500)}`,
      );
    }
  }
}

/** The response headers any official description documents for an operation's status (lower-cased names). */
export function documentedHeaders(operationId: string, status: number): string[] {
  const names = describing(operationId).flatMap(({ op }) => Object.keys(op.responses[String(status)]?.headers ?? {}));
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/**
 * A validator for one component schema (e.g. `JSONDocument`): the value must match it in every
 * official description that has it; `errors` are those of the first description refusing it.
 */
export function componentValidator(name: string): ValidateFunction {
  const having = descriptions.filter((d) => d.spec.components?.schemas?.[name]);
  if (!having.length) throw new Error(`no component ${name} in the official descriptions`);
  const validators = having.map((d) => ({ version: d.version, validate: d.ajv.compile({ $ref: `openapi#/components/schemas/${name}` }) }));
  const validate = ((value: unknown) => {
    for (const v of validators) {
      if (!v.validate(value)) {
        validate.errors = (v.validate.errors ?? []).map((e) => ({ ...e, message: `${e.message} (@gitbook/api@${v.version})` }));
        return false;
      }
    }
    validate.errors = null;
    return true;
  }) as ValidateFunction;
  return validate;
}
