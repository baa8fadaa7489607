/**
 * `@edgeboard/embed-sdk`: frames a published edgeboard dashboard in a host page and keeps it
 * running. It speaks the viewer's postMessage protocol (docs/rendering.md, "Renewal without
 * reload"), so the host only supplies a function that asks its own backend for a session.
 */

/** A session as the customer's backend gets it from `POST /api/v1/embed/generate-session`. */
export interface EmbedSession {
  sessionId: string;
  expiresAt: string;
}

/** What `onEvent` receives. */
export type EmbedEvent =
  | { type: 'loaded' }
  | { type: 'renewed' }
  | { type: 'resize'; height: number }
  | { type: 'session-expired' }
  | { type: 'open-chat' }
  | { type: 'error'; error: Error };

/** Styles of the iframe element itself (the dashboard's own theme lives in its config). */
export interface FrameTheme {
  border?: string;
  borderRadius?: string;
  background?: string;
  /** Height before the viewer reports the dashboard's (default 600px). */
  minHeight?: string;
}

export interface EmbedOptions {
  /** The element the iframe is appended to. */
  container: HTMLElement;
  /** Where edgeboard answers, e.g. `https://edgeboard.example.com`. */
  baseUrl: string;
  /** The published dashboard's `publicId`. */
  publicId: string;
  /** Asks the host's backend for a fresh session; called at start and before each expiry. */
  fetchSession: () => Promise<EmbedSession>;
  theme?: FrameTheme;
  onEvent?: (event: EmbedEvent) => void;
  /** How long to wait for the dashboard before reporting an error (default 30 s). */
  loadTimeoutMs?: number;
}

export interface EmbeddedDashboard {
  iframe: HTMLIFrameElement;
  /** Removes the iframe, the message listener and every timer; renewals in flight are dropped. */
  destroy(): void;
}

const MESSAGE_PREFIX = 'edgeboard:';

/**
 * Embeds the dashboard. The session travels in the URL fragment, which browsers never send to a
 * server, so it appears in no request log; renewals go through `edgeboard:set-session`.
 */
export function embedDashboard(options: EmbedOptions): EmbeddedDashboard {
  const { container, publicId, fetchSession, theme = {}, onEvent, loadTimeoutMs = 30_000 } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const iframe = document.createElement('iframe');
  iframe.title = 'edgeboard dashboard';
  iframe.style.width = '100%';
  iframe.style.border = theme.border ?? '0';
  iframe.style.height = theme.minHeight ?? '600px';
  if (theme.borderRadius) iframe.style.borderRadius = theme.borderRadius;
  if (theme.background) iframe.style.background = theme.background;

  let destroyed = false;
  let loaded = false;
  let renewing: Promise<void> | undefined;
  let loadTimer: ReturnType<typeof setTimeout> | undefined;

  const emit = (event: EmbedEvent) => {
    if (destroyed || !onEvent) return;
    try {
      onEvent(event);
    } catch (err) {
      // A failing host callback must not stop the embed; surface it asynchronously.
      setTimeout(() => {
        throw err;
      });
    }
  };
  const fail = (error: unknown) =>
    emit({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });

  const session = async (): Promise<EmbedSession> => {
    const result = await fetchSession();
    if (!result || typeof result.sessionId !== 'string' || result.sessionId === '') {
      throw new Error('fetchSession must resolve to {sessionId, expiresAt}');
    }
    return result;
  };

  /** One renewal at a time: the viewer may warn and then expire while a fetch is in flight. */
  const renew = (): Promise<void> => {
    renewing ??= session()
      .then(({ sessionId }) => {
        if (destroyed) return;
        iframe.contentWindow?.postMessage({ type: `${MESSAGE_PREFIX}set-session`, sessionId }, origin);
      })
      .catch(fail)
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };

  const onMessage = (event: MessageEvent) => {
    if (destroyed || event.source !== iframe.contentWindow || event.origin !== origin) return;
    const data: unknown = event.data;
    if (!data || typeof data !== 'object') return;
    const { type, height } = data as { type?: unknown; height?: unknown };
    switch (type) {
      case 'edgeboard:ready':
        loaded = true;
        clearTimeout(loadTimer);
        emit({ type: 'loaded' });
        break;
      case 'edgeboard:session-renewed':
        emit({ type: 'renewed' });
        break;
      case 'edgeboard:session-expiring':
        void renew();
        break;
      case 'edgeboard:session-expired':
        emit({ type: 'session-expired' });
        void renew();
        break;
      case 'edgeboard:resize':
        if (typeof height === 'number' && Number.isFinite(height) && height > 0) {
          iframe.style.height = `${Math.ceil(height)}px`;
          emit({ type: 'resize', height });
        }
        break;
      case 'edgeboard:open-chat':
        emit({ type: 'open-chat' });
        break;
      case 'edgeboard:error':
        fail(new Error(`The dashboard could not be shown: ${String((data as { code?: unknown }).code)}`));
        break;
    }
  };
  window.addEventListener('message', onMessage);

  session()
    .then(({ sessionId }) => {
      if (destroyed) return;
      iframe.src = `${base}/embed/dashboard/${encodeURIComponent(publicId)}#session=${encodeURIComponent(sessionId)}`;
      container.appendChild(iframe);
      loadTimer = setTimeout(() => {
        if (!loaded) fail(new Error(`The dashboard did not load within ${loadTimeoutMs} ms`));
      }, loadTimeoutMs);
    })
    .catch(fail);

  return {
    iframe,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearTimeout(loadTimer);
      window.removeEventListener('message', onMessage);
      iframe.remove();
    },
  };
}
