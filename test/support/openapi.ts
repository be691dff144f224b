import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Validates response bodies against the official GitBook OpenAPI description
 * (@gitbook/api@0.146.0, OpenAPI 3.0: `nullable` is understood by Ajv).
 */
const require = createRequire(import.meta.url);
const spec = normalizeNullable(structuredClone(require('@gitbook/api/spec/openapi.json'))) as any;

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

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);
ajv.addFormat('emoji', true);
ajv.addFormat('icon', true);
ajv.addSchema({ ...spec, $id: 'openapi' });

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function findOperation(operationId: string) {
  for (const [p, item] of Object.entries<any>(spec.paths)) {
    for (const [method, op] of Object.entries<any>(item)) if (op?.operationId === operationId) return { path: p, method, op };
  }
  throw new Error(`no operation ${operationId} in the official spec`);
}

const cache = new Map<string, ValidateFunction>();

/** The statuses the official spec documents for an operation. */
export function documentedStatuses(operationId: string): string[] {
  return Object.keys(findOperation(operationId).op.responses);
}

/** Throws with Ajv's errors when `body` does not match the operation's response schema for `status`. */
export function assertMatchesSpec(operationId: string, status: number, body: unknown) {
  const key = `${operationId} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    const { path, method, op } = findOperation(operationId);
    let response = op.responses[String(status)];
    if (!response) throw new Error(`${operationId} does not document status ${status} (it has ${Object.keys(op.responses).join(', ')})`);
    let ref = `openapi#/${pointer('paths', path, method, 'responses', String(status))}`;
    if (response.$ref) {
      ref = `openapi${response.$ref}`;
      response = spec.components.responses[response.$ref.split('/').pop()];
    }
    if (!response.content?.['application/json']) {
      validate = ((b: unknown) => b === undefined || b === null || b === '') as unknown as ValidateFunction;
    } else {
      validate = ajv.compile({ $ref: `${ref}/${pointer('content', 'application/json', 'schema')}` });
    }
    cache.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${operationId} ${status}: body does not match the official schema:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}\nbody: ${JSON.stringify(body).slice(0, 1500)}`);
  }
}

/** The response headers the official spec documents for an operation's status (lower-cased names). */
export function documentedHeaders(operationId: string, status: number): string[] {
  const response = findOperation(operationId).op.responses[String(status)];
  return Object.keys(response?.headers ?? {}).map((name) => name.toLowerCase());
}

/** A validator for one component schema of the official spec (e.g. `JSONDocument`). */
export function componentValidator(name: string): ValidateFunction {
  return ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
}
