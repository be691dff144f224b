import { createContext, useContext, useEffect, useState } from 'react';
import { Link, Navigate, Outlet, useLocation } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { errorMessage, isUnauthenticated } from '../lib/client';
import { signInPath } from '../lib/paths';
import { ThemeToggle } from '../lib/ThemeToggle';
import { SearchDialog } from './search/SearchDialog';
import { SignOutButton } from './sign-in/SignOutButton';

const ViewerQuery = graphql(`
  query Viewer {
    viewer { id displayName email photoURL }
    organizations(limit: 100) { items { id title } }
  }
`);

/** The organization the person is working in (search looks there); screens below an organization set it. */
const CurrentOrg = createContext<{ orgId: string | null; setOrgId: (id: string | null) => void }>({ orgId: null, setOrgId: () => {} });

export function useCurrentOrg(orgId: string | null | undefined) {
  const { setOrgId } = useContext(CurrentOrg);
  useEffect(() => {
    if (orgId) setOrgId(orgId);
  }, [orgId, setOrgId]);
}

/**
 * The signed-in frame of every screen: a header (home, search, theme, settings, sign out) and the
 * screen. Without a session the visitor is sent to sign in, with this screen as `next`.
 */
export function Layout() {
  const location = useLocation();
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery, requestPolicy: 'cache-first' });
  const [orgId, setOrgId] = useState<string | null>(null);
  const [searchOpen, setSearchOpen] = useState(false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setSearchOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (isUnauthenticated(error)) return <Navigate to={signInPath(location.pathname + location.search + location.hash)} replace />;
  if (!data) {
    return (
      <main className="page-status" aria-busy={fetching}>
        {fetching ? <p>Loading…</p> : <p role="alert">{errorMessage(error)}</p>}
      </main>
    );
  }
  const searchOrg = orgId ?? data.organizations.items[0]?.id ?? null;
  return (
    <CurrentOrg.Provider value={{ orgId, setOrgId }}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          Lectern
        </Link>
        <nav aria-label="Account" className="header-actions">
          <button
            type="button"
            className="search-button"
            onClick={() => setSearchOpen(true)}
            disabled={!searchOrg}
            aria-keyshortcuts="Control+K"
          >
            {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: a kbd is not focusable; the button announces the shortcut through aria-keyshortcuts */}
            Search <kbd aria-hidden="true">Ctrl K</kbd>
          </button>
          <ThemeToggle />
          <Link to="/settings">{data.viewer.displayName || 'Settings'}</Link>
          <SignOutButton />
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      {searchOpen && searchOrg && <SearchDialog organizationId={searchOrg} onClose={() => setSearchOpen(false)} />}
    </CurrentOrg.Provider>
  );
}
