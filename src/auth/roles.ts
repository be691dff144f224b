/** Member roles from least to most privileged. A null role is a guest. */
export const ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
export type RoleName = (typeof ROLES)[number];

/** A content's default level: a role, 'inherit' (from its parent), or null (no default access). */
export type DefaultLevel = RoleName | 'inherit' | null;

export const isRole = (value: unknown): value is RoleName => ROLES.includes(value as RoleName);

export function atLeast(role: RoleName | null | undefined, min: RoleName): boolean {
  return role != null && ROLES.indexOf(role) >= ROLES.indexOf(min);
}

export function higher(a: RoleName | null, b: RoleName | null): RoleName | null {
  if (a == null) return b;
  if (b == null) return a;
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}
