import { GraphQLError, Kind, parse, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Bounds on a GraphQL document, checked BEFORE the expensive phases (graphql-armor's approach,
 * done here in one plugin): the text's size and nesting before parsing, the token count while
 * parsing (graphql-js stops at `maxTokens`), and aliases, operations, fragments, directives and
 * fields per selection set in one linear walk of the parsed document before validation.
 *
 * Why: validation (notably OverlappingFieldsCanBeMerged) is superlinear in repeated fields, and the
 * parser recurses per nesting level. Measured before: 8,000 aliased fields (1.38 MB) cost 20 s and
 * +2 GB before the breadth limit refused them; 20,000 operations 2.5 s; 60,000 fragments 4.2 s.
 * The limits sit far above what a front-end sends (docs/graphql.md's whole-site query is ~60 tokens; the
 * GraphiQL introspection query ~300), and at the shape limits' level: a selection set may hold as
 * many fields as the complexity plugin's breadth allows, and nesting is capped well above its depth.
 */
export const DOCUMENT_LIMITS = {
  /** Characters of the document text. */
  characters: 100_000,
  /** Lexical tokens (graphql-js counts them while parsing). */
  tokens: 10_000,
  /** Brace/bracket/parenthesis nesting, checked on the text before the (recursive) parser runs. */
  nesting: 64,
  aliases: 400,
  operations: 20,
  fragments: 200,
  directives: 200,
  /** Fields (with their aliases) in one selection set: the complexity plugin's breadth. */
  fieldsPerSelection: 400,
  /**
   * Fields of one response name in one selection set, those its fragments bring included.
   * Validation compares such fields pairwise, with their sub-selections: 100 of
   * `viewer { id displayName email }` kept the event loop 110 ms on a quiet machine and 280 ms on
   * a busy one, 200 through fragments 380 ms. 32 are 496 pairs; a front-end repeats a name a few times.
   */
  sameNamePerSelection: 32,
} as const;

const refuse = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });

/**
 * The deepest nesting of `{ ( [` in a document's text, skipping strings, block strings and
 * comments: one pass, no recursion, stops as soon as `limit` is passed.
 */
export function textNesting(source: string, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 35 /* # */) {
      while (i < source.length && source.charCodeAt(i) !== 10 && source.charCodeAt(i) !== 13) i++;
    } else if (c === 34 /* " */) {
      if (source.startsWith('"""', i)) {
        // A block string ends at the next """ that is not escaped as \""".
        for (i += 3; i < source.length && !(source.startsWith('"""', i) && source.charCodeAt(i - 1) !== 92); i++);
        i += 2;
      } else {
        for (i++; i < source.length; i++) {
          const s = source.charCodeAt(i);
          if (s === 92) i++;
          else if (s === 34 || s === 10 || s === 13) break;
        }
      }
    } else if (c === 123 || c === 40 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 41 || c === 93) {
      depth = Math.max(0, depth - 1);
    }
  }
  return max;
}

/** Counts what the limits bound in a parsed document; the first limit passed is named. */
export function documentShapeProblem(document: DocumentNode): string | null {
  let aliases = 0;
  let operations = 0;
  let fragments = 0;
  let directives = 0;
  let problem: string | null = null;
  const over = (what: string, count: number, limit: number) => {
    if (count > limit) problem = `Query has more than ${limit} ${what}`;
    return count > limit;
  };
  // graphql-js's visit is iterative (its own stack), so a wide or deep document cannot overflow it.
  visit(document, {
    enter(node) {
      if (problem) return false;
      switch (node.kind) {
        case Kind.OPERATION_DEFINITION:
          over('operations', ++operations, DOCUMENT_LIMITS.operations);
          break;
        case Kind.FRAGMENT_DEFINITION:
          over('fragments', ++fragments, DOCUMENT_LIMITS.fragments);
          break;
        case Kind.DIRECTIVE:
          over('directives', ++directives, DOCUMENT_LIMITS.directives);
          break;
        case Kind.FIELD:
          if (node.alias) over('aliases', ++aliases, DOCUMENT_LIMITS.aliases);
          break;
        case Kind.SELECTION_SET:
          over('fields in one selection set', node.selections.length, DOCUMENT_LIMITS.fieldsPerSelection);
          break;
      }
      return problem ? false : undefined;
    },
  });
  return problem;
}

/**
 * The first response name a selection set holds more than DOCUMENT_LIMITS.sameNamePerSelection
 * times, its fragments and inline fragments flattened into it (each selection set counted once:
 * a count is a number, so fragments spread within fragments do not multiply the work).
 */
export function repeatedNameProblem(document: DocumentNode): string | null {
  const limit = DOCUMENT_LIMITS.sameNamePerSelection;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const counted = new Map<SelectionSetNode, Map<string, number>>();
  // `open`: the fragments being flattened on this path (a cycle is validation's to refuse; here it only must end).
  const countsOf = (set: SelectionSetNode, open: Set<string>): Map<string, number> => {
    const known = counted.get(set);
    if (known) return known;
    const counts = new Map<string, number>();
    const add = (key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) add(selection.alias?.value ?? selection.name.value, 1);
      else if (selection.kind === Kind.INLINE_FRAGMENT) for (const [key, n] of countsOf(selection.selectionSet, open)) add(key, n);
      else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || open.has(fragment.name.value)) continue;
        open.add(fragment.name.value);
        for (const [key, n] of countsOf(fragment.selectionSet, open)) add(key, n);
        open.delete(fragment.name.value);
      }
    }
    counted.set(set, counts);
    return counts;
  };
  let problem: string | null = null;
  visit(document, {
    SelectionSet(node) {
      if (problem) return false;
      for (const [key, n] of countsOf(node, new Set()))
        if (n > limit) {
          problem = `Query has more than ${limit} fields named "${key}" in one selection set`;
          return false;
        }
      return undefined;
    },
  });
  return problem;
}

/** Parsed documents already found within the limits: yoga's parse cache hands the same object back for the same text. */
const withinShape = new WeakSet<DocumentNode>();

/** The yoga/envelop plugin applying DOCUMENT_LIMITS to every document a client sends to /graphql. */
export const useDocumentLimits = (): Plugin => ({
  onParse({ params, setParseFn }) {
    const source = typeof params.source === 'string' ? params.source : (params.source?.body as string | undefined);
    if (typeof source === 'string') {
      if (source.length > DOCUMENT_LIMITS.characters) throw refuse(`Query is larger than ${DOCUMENT_LIMITS.characters} characters`);
      if (textNesting(source, DOCUMENT_LIMITS.nesting) > DOCUMENT_LIMITS.nesting)
        throw refuse(`Query is nested more than ${DOCUMENT_LIMITS.nesting} levels deep`);
    }
    setParseFn((text, options) => {
      try {
        return parse(text, { ...options, maxTokens: DOCUMENT_LIMITS.tokens });
      } catch (error) {
        // graphql-js words it "Document contains more that N tokens. Parsing aborted."
        if (error instanceof GraphQLError && /more th\w+ \d+ tokens/.test(error.message))
          throw refuse(`Query has more than ${DOCUMENT_LIMITS.tokens} tokens`);
        throw error;
      }
    });
    return ({ result, replaceParseResult }) => {
      if (!result || result instanceof Error || withinShape.has(result as DocumentNode)) return;
      const problem = documentShapeProblem(result as DocumentNode) ?? repeatedNameProblem(result as DocumentNode);
      if (problem) replaceParseResult(refuse(problem));
      else withinShape.add(result as DocumentNode);
    };
  },
});
