import jsep from 'jsep';

/**
 * Adaptive-content conditions (`visitor.claims.unsigned.beta == true`, `visitor.claims.plan == "pro"
 * && !visitor.claims.trial`) evaluated against a visitor's claims without `eval`: the expression is
 * parsed with jsep (as the sites module checks it when it is written) and its tree is walked here.
 *
 * Allowed: literals, the one identifier `visitor`, member access (`a.b`, `a["b"]`) to own
 * properties of plain data only (no prototype, no functions), `!`, unary `-`/`+`, comparisons
 * (`==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=`), `&&`, `||`, `? :`, array literals and the
 * `in`-like call `array.includes(x)`. Anything else — another identifier, a call, `this`,
 * assignment — makes the condition false (hidden), as does a condition that does not parse, so a
 * broken condition never shows content meant for a narrower audience.
 */
export type Claims = Record<string, unknown>;
export interface Visitor {
  claims: Claims & { unsigned?: Record<string, unknown> };
}

type Node = jsep.Expression;
class Unsupported extends Error {}

const parsed = new Map<string, Node | null>();
function parse(condition: string): Node | null {
  let node = parsed.get(condition);
  if (node === undefined) {
    try {
      node = jsep(condition);
      if (node.type === 'Compound') node = null;
    } catch {
      node = null;
    }
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(condition, node);
  }
  return node;
}

function member(object: unknown, key: unknown): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  const name = String(key);
  if (Array.isArray(object)) return name === 'length' ? object.length : /^\d+$/.test(name) ? object[Number(name)] : undefined;
  return Object.hasOwn(object, name) ? (object as Record<string, unknown>)[name] : undefined;
}

function evaluate(node: Node, scope: { visitor: Visitor }): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (name === 'visitor') return scope.visitor;
      if (name === 'undefined') return undefined;
      throw new Unsupported(name);
    }
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      const object = evaluate(m.object, scope);
      const key = m.computed ? evaluate(m.property, scope) : (m.property as jsep.Identifier).name;
      return member(object, key);
    }
    case 'ArrayExpression':
      return (node as jsep.ArrayExpression).elements.map((e) => (e ? evaluate(e, scope) : undefined));
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const value = evaluate(u.argument, scope);
      if (u.operator === '!') return !value;
      if (u.operator === '-') return -Number(value);
      if (u.operator === '+') return Number(value);
      throw new Unsupported(u.operator);
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      return evaluate(c.test, scope) ? evaluate(c.consequent, scope) : evaluate(c.alternate, scope);
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const b = node as jsep.BinaryExpression;
      if (b.operator === '&&') return evaluate(b.left, scope) && evaluate(b.right, scope);
      if (b.operator === '||') return evaluate(b.left, scope) || evaluate(b.right, scope);
      const [l, r] = [evaluate(b.left, scope), evaluate(b.right, scope)];
      switch (b.operator) {
        case '==':
        case '===':
          return l === r;
        case '!=':
        case '!==':
          return l !== r;
        case '<':
          return (l as number) < (r as number);
        case '<=':
          return (l as number) <= (r as number);
        case '>':
          return (l as number) > (r as number);
        case '>=':
          return (l as number) >= (r as number);
        default:
          throw new Unsupported(b.operator);
      }
    }
    case 'CallExpression': {
      // Only `<array or string>.includes(<value>)`.
      const call = node as jsep.CallExpression;
      const callee = call.callee as jsep.MemberExpression;
      if (
        callee.type !== 'MemberExpression' ||
        callee.computed ||
        (callee.property as jsep.Identifier).name !== 'includes' ||
        call.arguments.length !== 1
      ) {
        throw new Unsupported('call');
      }
      const target = evaluate(callee.object, scope);
      const value = evaluate(call.arguments[0]!, scope);
      if (Array.isArray(target)) return target.includes(value);
      if (typeof target === 'string') return typeof value === 'string' && target.includes(value);
      return false;
    }
    default:
      throw new Unsupported(node.type);
  }
}

/** Whether `condition` holds for `visitor`; no condition holds always; an invalid one never. */
export function conditionHolds(condition: string | null | undefined, visitor: Visitor): boolean {
  if (!condition?.trim()) return true;
  const node = parse(condition);
  if (!node) return false;
  try {
    return !!evaluate(node, { visitor });
  } catch {
    return false;
  }
}
