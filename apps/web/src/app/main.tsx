import '@mantine/core/styles/baseline.css';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/InlineInput.css';
import './global.css';

import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { installGlobalErrorHandlers } from './global-errors.ts';
import { holdModalEvents } from './modal-events.ts';
import { createQueryClient } from './query-client.ts';
import { router } from './routes.tsx';
import { theme } from './theme.ts';

// Toasts and confirm dialogs arrive after the first page: neither is needed to paint it (docs/web-app.md).
const Notifications = lazy(() => import('./notifications.tsx'));
const Modals = lazy(() => import('./modals.tsx'));

installGlobalErrorHandlers();
holdModalEvents();
const queryClient = createQueryClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Suspense fallback={null}>
        <Notifications />
      </Suspense>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
        <Suspense fallback={null}>
          <Modals />
        </Suspense>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
