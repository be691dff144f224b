import { Kind, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** Whether `selectionSet` (its fragments followed, not the fields below it) selects `field`. */
export function selects(
  selectionSet: SelectionSetNode,
  fragmentOf: (name: string) => FragmentDefinitionNode | undefined,
  field: string,
  seen = new Set<string>(),
): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD && selection.name.value === field) return true;
    if (selection.kind === Kind.INLINE_FRAGMENT && selects(selection.selectionSet, fragmentOf, field, seen)) return true;
    if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragmentOf(selection.name.value);
      if (fragment && selects(fragment.selectionSet, fragmentOf, field, seen)) return true;
    }
  }
  return false;
}

/** Whether the field a resolver answers selects `field` on its value. */
export const infoSelects = (info: GraphQLResolveInfo, field: string): boolean =>
  info.fieldNodes.some((node) => node.selectionSet !== undefined && selects(node.selectionSet, (name) => info.fragments[name], field));
