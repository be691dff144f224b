import { createBrowserRouter } from 'react-router';
import { Layout } from './routes/Layout';
import { NotFound } from './routes/NotFound';
import { Home } from './routes/home/Home';
import { Organization } from './routes/org/Organization';
import { Collection } from './routes/collection/Collection';
import { Space } from './routes/space/Space';
import { ChangeRequestList } from './routes/space/changes/ChangeRequestList';
import { Settings } from './routes/settings/Settings';
import { SignIn } from './routes/sign-in/SignIn';
import { ResetPassword } from './routes/sign-in/ResetPassword';
import { Members } from './routes/admin/Members';
import { Teams } from './routes/admin/Teams';
import { Invites } from './routes/admin/Invites';
import { Sites } from './routes/admin/Sites';
import { SiteDetail } from './routes/admin/SiteDetail';
import { AuditLog } from './routes/admin/AuditLog';
import { Join } from './routes/org/Join';
import { OpenAPISpec } from './routes/openapi/OpenAPISpec';
import { IssuesCluster } from './routes/conversations/IssuesCluster';

/**
 * The app's screens, one per kind of `urls.app` the API answers (src/urls.ts) plus sign-in and
 * settings. Paths are below /app (the router's basename). Every screen but sign-in and password
 * reset sits in the signed-in layout, which sends a signed-out visitor to sign in and back.
 */
export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignIn /> },
    { path: '/reset-password', element: <ResetPassword /> },
    {
      element: <Layout />,
      children: [
        { path: '/', element: <Home /> },
        { path: '/o/:orgId', element: <Organization /> },
        { path: '/o/:orgId/members', element: <Members /> },
        { path: '/o/:orgId/teams', element: <Teams /> },
        { path: '/o/:orgId/invites', element: <Invites /> },
        { path: '/o/:orgId/sites', element: <Sites /> },
        { path: '/o/:orgId/sites/:siteId', element: <SiteDetail /> },
        { path: '/o/:orgId/sites/:siteId/preview', element: <SiteDetail /> },
        { path: '/o/:orgId/audit', element: <AuditLog /> },
        { path: '/o/:orgId/join/:inviteId', element: <Join /> },
        { path: '/o/:orgId/openapi/:slug', element: <OpenAPISpec /> },
        { path: '/o/:orgId/conversations/clusters/:clusterId', element: <IssuesCluster /> },
        { path: '/collections/:collectionId', element: <Collection /> },
        { path: '/s/:spaceId/~/changes', element: <ChangeRequestList /> },
        { path: '/s/:spaceId/*', element: <Space /> },
        { path: '/settings', element: <Settings /> },
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: '/app' },
);
