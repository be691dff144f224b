import { NavLink } from 'react-router';

/** The organization's screens: its content, and for admins its people, sites and audit log. */
export function AdminNav({ orgId, admin }: { orgId: string; admin: boolean }) {
  const links: [string, string][] = [[`/o/${orgId}`, 'Content']];
  if (admin)
    links.push(
      [`/o/${orgId}/members`, 'Members'],
      [`/o/${orgId}/teams`, 'Teams'],
      [`/o/${orgId}/invites`, 'Invites'],
      [`/o/${orgId}/sites`, 'Sites'],
      [`/o/${orgId}/audit`, 'Audit log'],
    );
  return (
    <nav aria-label="Organization" className="tabs">
      <ul>
        {links.map(([to, label]) => (
          <li key={to}>
            <NavLink to={to} end>
              {label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
