import { Kind, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields `selectionSet` selects (its fragments followed, not the fields below
 * them), worked out once per selection set: a parsed document is cached and reused, so its nodes
 * are the same objects request after request, and a fragment name means one fragment in it.
 */
const selectedNames = new WeakMap<SelectionSetNode, ReadonlySet<string>>();
function selectedFields(selectionSet: SelectionSetNode, fragmentOf: (name: string) => FragmentDefinitionNode | undefined) {
  let names = selectedNames.get(selectionSet);
  if (names) return names;
  const collect = (set: SelectionSetNode, seen: Set<string>, into: Set<string>): Set<string> => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) into.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, seen, into);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragmentOf(selection.name.value);
        if (fragment) collect(fragment.selectionSet, seen, into);
      }
    }
    return into;
  };
  names = collect(selectionSet, new Set(), new Set());
  selectedNames.set(selectionSet, names);
  return names;
}

/** Whether `selectionSet` (its fragments followed, not the fields below it) selects `field`. */
export const selects = (
  selectionSet: SelectionSetNode,
  fragmentOf: (name: string) => FragmentDefinitionNode | undefined,
  field: string,
): boolean => selectedFields(selectionSet, fragmentOf).has(field);

/** Whether the field a resolver answers selects `field` on its value. */
export const infoSelects = (info: GraphQLResolveInfo, field: string): boolean =>
  info.fieldNodes.some((node) => node.selectionSet !== undefined && selects(node.selectionSet, (name) => info.fragments[name], field));
