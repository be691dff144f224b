import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { Provider } from 'urql';
import { client } from './lib/client';
import { applyStoredTheme } from './lib/theme';
import { router } from './routes';
import './styles/app.css';

applyStoredTheme();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Provider value={client}>
      <RouterProvider router={router} />
    </Provider>
  </StrictMode>,
);
