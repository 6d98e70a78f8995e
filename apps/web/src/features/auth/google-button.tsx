import { Box } from '@mantine/core';
import { useEffect, useRef } from 'react';

interface GoogleCredentialResponse {
  credential?: string;
}

interface GoogleIdentity {
  accounts: {
    id: {
      initialize(options: {
        client_id: string;
        callback: (response: GoogleCredentialResponse) => void;
      }): void;
      renderButton(element: HTMLElement, options: Record<string, unknown>): void;
    };
  };
}

declare global {
  interface Window {
    google?: GoogleIdentity;
  }
}

const scriptUrl = 'https://accounts.google.com/gsi/client';
let scriptPromise: Promise<void> | null = null;

/** Loads Google's sign-in script once, and only when a client id is configured. */
function loadGoogleScript(): Promise<void> {
  scriptPromise ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = scriptUrl;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      scriptPromise = null;
      reject(new Error('Google sign-in could not load.'));
    };
    document.head.appendChild(script);
  });
  return scriptPromise;
}

interface GoogleButtonProps {
  clientId: string;
  text: 'signin_with' | 'signup_with' | 'continue_with';
  onCredential: (idToken: string) => void;
  onError: (message: string) => void;
}

/** Google's own sign-in button; hands back the ID token. */
export function GoogleButton({ clientId, text, onCredential, onError }: GoogleButtonProps) {
  const container = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onCredential, onError });
  callbacks.current = { onCredential, onError };

  useEffect(() => {
    let isCancelled = false;
    loadGoogleScript()
      .then(() => {
        if (isCancelled || !container.current || !window.google) return;
        window.google.accounts.id.initialize({
          client_id: clientId,
          callback: (response) => {
            if (response.credential) callbacks.current.onCredential(response.credential);
            else callbacks.current.onError("Didn't receive credentials.");
          },
        });
        window.google.accounts.id.renderButton(container.current, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text,
          shape: 'rectangular',
          width: Math.min(container.current.offsetWidth || 360, 400),
        });
      })
      .catch((error: unknown) => {
        if (!isCancelled) callbacks.current.onError(error instanceof Error ? error.message : String(error));
      });
    return () => {
      isCancelled = true;
    };
  }, [clientId, text]);

  return <Box ref={container} mih={44} w="100%" style={{ display: 'flex', justifyContent: 'center' }} />;
}
