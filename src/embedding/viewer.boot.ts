/**
 * What the viewer page hands its client script (a JSON `<script>` element): shared by the page
 * (src/embedding/viewer.page.ts) and the script (src/embedding/viewer-client.ts), so both are
 * checked against one shape.
 */
export interface ViewerBoot {
  /**
   * `ready` when the dashboard is shown, else the notice: on screen, or (the page of an address
   * without a session) shown by the script when the fragment brings no session either.
   */
  state: string;
  /** The API error code of that notice (posted as `edgeboard:error`), null when ready. */
  code: string | null;
  /** Milliseconds until the session expires (null: no dashboard shown). */
  expiresInMs: number | null;
  /** Where a renewal fetches the dashboard markup for a new session. */
  contentUrl: string;
  /** Origins whose messages the page takes (null: any). */
  allowedOrigins: string[] | null;
  notices: Record<string, { title: string; message: string }>;
  /** API error codes → the notice each shows. */
  codes: Record<string, string>;
}

/** The content endpoint's answer (`GET /embed/dashboard/{publicId}/content`). */
export interface ViewerContent {
  title: string;
  html: string;
  css: string;
  expiresInMs: number;
}
