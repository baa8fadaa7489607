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
  /** Where a renewal fetches the dashboard markup for a new session (and a control change, its charts). */
  contentUrl: string;
  /** Where a FILTER control reads the values it offers (`?widgetId=&search=`). */
  filterValuesUrl: string;
  /** The dashboard's controls as shown (empty without a dashboard). */
  controls: ViewerControls;
  /** Origins whose messages the page takes (null: any). */
  allowedOrigins: string[] | null;
  /**
   * The dashboard's comments API (`GET`/`POST …/comments` and the rest, with the session's
   * Authorization header), or null when the page offers no comments panel (the account's app
   * config turned dashboard comments off).
   */
  commentsUrl: string | null;
  /** Whether the session's user may write comments (the content answer says so after a renewal). */
  canComment: boolean;
  notices: Record<string, { title: string; message: string }>;
  /** API error codes → the notice each shows. */
  codes: Record<string, string>;
}

type Scalar = string | number | boolean | null;

/** One FILTER or TIME_GRAIN widget as the viewer's script makes it a form control. */
export interface ViewerControl {
  widgetId: string;
  kind: 'filter' | 'timeGrain';
  member: string;
  label: string;
  /** A filter's current values (empty: all). */
  values: Scalar[];
  /** A time grain's current grain. */
  grain: string | null;
  /** A session's locked filter: shown, fixed. */
  locked: boolean;
  /** The CHART widgets its value can change: what a change refreshes. */
  targets: string[];
}

/** The controls of a load: the widgets, and every filter and grain value it applied. */
export interface ViewerControls {
  widgets: ViewerControl[];
  /** Every filter applied (widgets', the host page's on other members, the session's locked ones). */
  filters: { member: string; values: Scalar[]; locked?: boolean }[];
  timeGrains: { member: string; grain: string }[];
}

/**
 * The content endpoint's answer (`GET /embed/dashboard/{publicId}/content`). With `?widgets=`
 * only those widgets' charts were run: `widgets` names the sections of `html` to swap, and
 * `controls` carries no targets (the page keeps those of its full load).
 */
export interface ViewerContent {
  title: string;
  html: string;
  css: string;
  expiresInMs: number;
  controls: ViewerControls;
  widgets: string[] | null;
  /** Whether the session's user may write comments (a stored embed user; others only read them). */
  canComment: boolean;
}
