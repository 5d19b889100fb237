// geth's query depth limit (graph-gophers MaxDepth): a field nested deeper than the limit fails validation. Top
// level fields are at depth 1; fragments (inline or spread) add no level of their own.
import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export const MAX_QUERY_DEPTH = 20;

export function maxDepthRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const visit = (set: SelectionSetNode | undefined, depth: number, seen: Set<FragmentDefinitionNode>): boolean => {
      if (!set) return false;
      let exceeded = false;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (depth > max) {
            context.reportError(
              new GraphQLError(`Field "${sel.name.value}" has depth ${depth} that exceeds max depth ${max}`, {
                nodes: sel,
                extensions: { rule: 'MaxDepthExceeded' },
              }),
            );
            exceeded = true;
            continue;
          }
          exceeded = visit(sel.selectionSet, depth + 1, seen) || exceeded;
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          exceeded = visit(sel.selectionSet, depth, seen) || exceeded;
        } else {
          const fragment = context.getFragment(sel.name.value);
          if (!fragment || seen.has(fragment)) continue;
          seen.add(fragment);
          exceeded = visit(fragment.selectionSet, depth, seen) || exceeded;
          seen.delete(fragment);
        }
      }
      return exceeded;
    };
    return {
      OperationDefinition(node) {
        visit(node.selectionSet, 1, new Set());
        return false;
      },
    };
  };
}
