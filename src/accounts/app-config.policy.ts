import { ApiError } from '../core/errors';
import type { AppConfig, StoredAppConfig } from './tenant-settings.schemas';

/**
 * What an account's app config changes in what edgeboard serves, as pure functions of the stored
 * config (a repository joins `account_settings.app_config` into its own read, or calls
 * `readAppConfig`): the download restriction, the time zone queries run and times are written
 * in, and the default theme of rendered dashboards. No row is the same as `{}`.
 */

export type StoredConfig = StoredAppConfig | null | undefined;

type Obj = Record<string, unknown>;
type Seed = { color?: string; hue?: number; saturation?: number } | undefined;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A palette seed's colour: its own, else one made of its hue and saturation. */
function seedColor(seed: Seed): string | undefined {
  if (!seed) return undefined;
  if (seed.color) return seed.color;
  if (seed.hue === undefined) return undefined;
  return `hsl(${seed.hue}, ${seed.saturation ?? 70}%, 50%)`;
}

const LIGHT = { accentColor: '#4f46e5', backgroundColor: '#f4f5f7', foregroundColor: '#1f2430' };
const DARK = { accentColor: '#818cf8', backgroundColor: '#111827', foregroundColor: '#f9fafb' };

/**
 * getAppConfig's answer: the stored config with Cube's required fields filled in (an app theme's
 * deprecated `light`/`dark` schemes from its palette and logo) and the embedded chat's
 * account-wide default, which the account itself holds.
 */
export function appConfigOf(stored: StoredConfig, showDashboardChat: boolean): AppConfig {
  const c = stored ?? {};
  const t = c.appTheme;
  let appTheme: AppConfig['appTheme'] = null;
  if (t) {
    const accent = seedColor(t.palette?.accent);
    const logoUrl = t.logoUrl ?? '';
    const scheme = (given: typeof t.light, base: typeof LIGHT) => ({
      accentColor: given?.accentColor ?? accent ?? base.accentColor,
      backgroundColor: given?.backgroundColor ?? base.backgroundColor,
      foregroundColor: given?.foregroundColor ?? base.foregroundColor,
      contrast: given?.contrast ?? t.palette?.contrastLevel ?? 50,
      logoUrl: given?.logoUrl ?? logoUrl,
    });
    const ty = t.typography;
    appTheme = {
      palette: t.palette ?? {},
      logoUrl,
      light: scheme(t.light, LIGHT),
      dark: scheme(t.dark, DARK),
      ...(ty
        ? {
            typography: {
              fonts: ty.fonts ?? [],
              body: { fontRef: ty.body?.fontRef ?? '', fontWeight: ty.body?.fontWeight ?? 400 },
              heading: { fontRef: ty.heading?.fontRef ?? '', fontWeight: ty.heading?.fontWeight ?? 700 },
            },
          }
        : {}),
    };
  }
  return {
    appTheme,
    applyThemeGlobally: c.applyThemeGlobally ?? false,
    creatorMode: c.creatorMode ?? null,
    embedding: { ...c.embedding, showDashboardChat },
    restrictDataDownload: c.restrictDataDownload ?? false,
    sheetsAgentChatEnabled: c.sheetsAgentChatEnabled ?? false,
    sheetsUi: c.sheetsUi ?? null,
    timezoneSettings: c.timezoneSettings ?? null,
  };
}

/**
 * Whether the embed viewer offers its comments panel: unless the app config turns dashboard
 * comments off (`embedding.enableDashboardComments: false`). Never set keeps them on, since the
 * comments API serves every embed session that may load the dashboard.
 */
export function dashboardCommentsOffered(stored: StoredConfig): boolean {
  return stored?.embedding?.enableDashboardComments !== false;
}

/**
 * Whether the account restricts data downloads (`restrictDataDownload`): dashboard files on
 * request (the render endpoint, exports) are refused with 403, and the embed load tells its
 * client to offer none (`settings.restrictDataDownload`). Scheduled notifications still deliver
 * their files, as Cube's do.
 */
export function downloadsRestricted(stored: StoredConfig): boolean {
  return stored?.restrictDataDownload === true;
}

/** The refusal of a dashboard file (a render, an export) under the account's download restriction. */
export const downloadRestricted = (): ApiError =>
  new ApiError(
    'DOWNLOAD_RESTRICTED',
    'The account restricts data downloads (restrictDataDownload): dashboards are not rendered to files',
  );

/** The account's time zone policy: its zone when `timezoneSettings` is enabled with one, else null. */
export function accountTimeZone(stored: StoredConfig): string | null {
  const tz = stored?.timezoneSettings;
  return tz?.enabled === true && tz.timezone ? tz.timezone : null;
}

/**
 * The zone an embedded dashboard's viewer sees (the viewer page and the embed load API), or null
 * when nothing names one (the viewer's default, UTC). With the policy on and `allowUserOverride`
 * not true, the policy zone, whatever was requested; otherwise the requested zone (the
 * session's `settings.timezone`), else the account's embed default (`embedding.timezone`), else
 * the policy zone. `requested` must already be a valid IANA name (an invalid one is the
 * caller's to drop).
 */
export function embedTimeZone(stored: StoredConfig, requested?: string | null): string | null {
  const policy = accountTimeZone(stored);
  if (policy && stored?.timezoneSettings?.allowUserOverride !== true) return policy;
  return requested || stored?.embedding?.timezone || policy || null;
}

/**
 * The time zone a surface computes and writes times in.
 * - `account` (the render endpoint, notification files): the account's policy zone, else UTC.
 * - `embed` (the viewer and the embed load API): `embedTimeZone`, else UTC.
 */
export function effectiveTimeZone(
  stored: StoredConfig,
  surface: 'account' | 'embed',
  requested?: string | null,
): string {
  if (surface === 'account') return accountTimeZone(stored) ?? 'UTC';
  return embedTimeZone(stored, requested) ?? 'UTC';
}

const FAMILY = /^[\p{L}\p{N} _-]{1,100}$/u;

/** The family a typography role names: its font's family, else the reference itself if it reads as one. */
function familyOf(
  typography: NonNullable<StoredAppConfig['appTheme']>['typography'],
  role: 'body' | 'heading',
) {
  const ref = typography?.[role]?.fontRef;
  if (!ref) return undefined;
  const font = typography?.fonts?.find((f) => f.id === ref);
  const family = font ? font.family : ref;
  return family && FAMILY.test(family) ? family : undefined;
}

/** Drops undefined leaves and the objects they leave empty. */
function pruned(value: Obj): Obj | undefined {
  const out: Obj = {};
  for (const [key, v] of Object.entries(value)) {
    const kept = isObj(v) ? pruned(v) : v;
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The account's app theme as a dashboard theme (the shape of a dashboard's `theme`), when the
 * account applies it globally (`applyThemeGlobally`): accent → primaryColor, the light scheme's
 * background and foreground → the page background and the widgets' text and titles, the
 * typography's body and heading families → the fonts. null when there is none to apply. Every
 * value is a hex colour, an hsl() of numbers or a plain family name (held so when written).
 */
export function accountDashboardTheme(stored: StoredConfig): Obj | null {
  const t = stored?.appTheme;
  if (!t || stored?.applyThemeGlobally !== true) return null;
  const foreground = t.light?.foregroundColor;
  const heading = familyOf(t.typography, 'heading');
  return (
    pruned({
      primaryColor: seedColor(t.palette?.accent) ?? t.light?.accentColor,
      backgroundColor: t.light?.backgroundColor,
      fontFamily: familyOf(t.typography, 'body'),
      widgets: {
        title: {
          color: foreground,
          fontFamily: heading,
          fontWeight: heading ? t.typography?.heading?.fontWeight : undefined,
        },
        text: { color: foreground },
      },
    }) ?? null
  );
}

/** A web font the account's theme draws with: its family, where it loads from and its format. */
export interface ThemeFont {
  family: string;
  url: string;
  format: string;
}

// An https URL with nothing that could leave a CSS url("…") or a CSP source list: no quotes,
// parentheses, backslashes, whitespace, commas or semicolons.
const FONT_URL = /^https:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[A-Za-z0-9._~%/+-]*)?$/;

/**
 * The web fonts of the account's theme that a page loads (the viewer page's `@font-face` rules
 * and its CSP's font-src), when the account applies its theme globally: the fonts the
 * typography's body and heading name, each once. Renders draw with their own fonts.
 */
export function accountThemeFonts(stored: StoredConfig): ThemeFont[] {
  const typography = stored?.appTheme?.typography;
  if (!typography || stored?.applyThemeGlobally !== true) return [];
  const refs = new Set([typography.body?.fontRef, typography.heading?.fontRef]);
  const fonts: ThemeFont[] = [];
  for (const font of typography.fonts ?? []) {
    if (!refs.has(font.id) || !FONT_URL.test(font.url)) continue;
    // A font without a family is one the theme's CSS cannot name (see familyOf).
    if (font.family && FAMILY.test(font.family)) {
      fonts.push({ family: font.family, url: font.url, format: font.format });
    }
  }
  return fonts;
}

/** `base` under `over`: objects merge, any other value of `over` that is not null wins. */
function merged(base: Obj, over: unknown): Obj {
  if (!isObj(over)) return base;
  const out: Obj = { ...base };
  for (const [key, v] of Object.entries(over)) {
    if (v === null || v === undefined) continue;
    const b = out[key];
    out[key] = isObj(b) && isObj(v) ? merged(b, v) : v;
  }
  return out;
}

/**
 * A dashboard configuration with the account's theme as the default of its own: every value the
 * dashboard's theme sets wins, the account's fills the rest. The configuration is returned as
 * it is when the account applies no theme.
 */
export function withAccountTheme<C extends { theme?: unknown } | null | undefined>(
  config: C,
  stored: StoredConfig,
): C {
  const theme = accountDashboardTheme(stored);
  if (!theme) return config;
  return { ...(config ?? {}), theme: merged(theme, config?.theme) } as C;
}
