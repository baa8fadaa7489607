import * as v from 'valibot';
import { WEEKDAYS } from '../../schema/settings';
import { canonicalTimeZone } from '../core/time-zone';
import { httpUrl, obj } from '../core/validation';

/**
 * Cube's TenantSettings and AppConfigResponse, and what an update of each takes. Every input
 * field is bounded; objects are strict (an unknown field is a 400, as everywhere in edgeboard).
 */

// ---- Tenant settings (Cube's TenantSettingsInput / TenantSettings) ----

const weekday = v.pipe(
  v.string(),
  v.maxLength(9),
  v.transform((s) => s.toLowerCase()),
  v.picklist(WEEKDAYS, 'Expected a day of the week in English (monday … sunday)'),
);

const clockTime = v.pipe(
  v.string(),
  v.regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'Expected a 24-hour time HH:MM (00:00–23:59)'),
);

/** Cube's TenantSettingsInput: every field optional; `null` is a field not sent. */
const tenantSettingsInput = obj({
  auditLogEnabled: v.nullish(v.boolean()),
  hasSupportAccess: v.nullish(v.boolean()),
  maintenanceWindowDay: v.nullish(
    v.pipe(weekday, v.description('A day of the week in English, any case; answered lowercase.')),
  ),
  maintenanceWindowEnabled: v.nullish(v.boolean()),
  maintenanceWindowTime: v.nullish(v.pipe(clockTime, v.description('HH:MM, 24-hour, UTC.'))),
  oidcEnabled: v.nullish(v.boolean()),
  useAIBIUserInterface: v.nullish(v.boolean()),
});

/** The body of updateTenantSettings (Cube: not required; no body changes nothing). */
export const tenantSettingsBody = v.optional(tenantSettingsInput);

export type TenantSettingsInput = v.InferOutput<typeof tenantSettingsInput>;

/** Cube's TenantSettings: every field required. */
export const tenantSettingsSchema = v.object({
  auditLogEnabled: v.boolean(),
  auditLogEnabledCurrent: v.boolean(),
  auditLogEnabledTimestamp: v.pipe(
    v.number(),
    v.integer(),
    v.description('When auditLogEnabled last changed value, in epoch milliseconds; 0 when it never did.'),
  ),
  hasSupportAccess: v.boolean(),
  maintenanceWindowDay: v.string(),
  maintenanceWindowEnabled: v.boolean(),
  maintenanceWindowTime: v.string(),
  oidcEnabled: v.boolean(),
  useAIBIUserInterface: v.boolean(),
});

export type TenantSettings = v.InferOutput<typeof tenantSettingsSchema>;

// ---- App config (Cube's AppConfigResponse) ----

/** A hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa (nothing that could leave a CSS declaration). */
const hexColor = v.pipe(
  v.string(),
  v.regex(/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'Expected a hex colour such as #4f46e5'),
);
const range = (min: number, max: number) => v.pipe(v.number(), v.minValue(min), v.maxValue(max));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const https = v.pipe(
  httpUrl,
  v.check((s) => /^https:\/\//i.test(s), 'Expected an https:// URL'),
);

const timeZone = v.pipe(
  v.string(),
  v.maxLength(64),
  v.check((s) => canonicalTimeZone(s) !== null, 'Expected an IANA time zone name such as Europe/Berlin'),
  v.transform((s) => canonicalTimeZone(s) as string),
);

const canonicalLocale = (tag: string): string | null => {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
};

const locale = v.pipe(
  v.string(),
  v.maxLength(35),
  v.check((s) => canonicalLocale(s) !== null, 'Expected a BCP 47 language tag such as es-ES'),
  v.transform((s) => canonicalLocale(s) as string),
);

/** A font family name: letters, digits, spaces, hyphens and underscores. */
const familyName = v.pipe(
  v.string(),
  v.maxLength(100),
  v.regex(/^[\p{L}\p{N} _-]+$/u, 'Expected a font family name: letters, digits, spaces, hyphens'),
);

const seed = obj({
  color: v.nullish(hexColor),
  hue: v.nullish(range(0, 360)),
  saturation: v.nullish(range(0, 100)),
});

const scheme = obj({
  accentColor: v.nullish(hexColor),
  backgroundColor: v.nullish(hexColor),
  foregroundColor: v.nullish(hexColor),
  contrast: v.nullish(range(0, 100)),
  logoUrl: v.nullish(https),
});

const fontRef = obj({
  fontRef: v.nullish(text(100)),
  fontWeight: v.nullish(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(900))),
});

const themeFont = obj({
  id: v.pipe(text(100), v.minLength(1)),
  url: https,
  format: v.picklist(['woff2', 'woff', 'truetype', 'opentype']),
  family: v.nullish(familyName),
  name: v.nullish(text(100)),
});

const appThemePatch = obj({
  palette: v.nullish(
    obj({
      accent: v.nullish(seed),
      base: v.nullish(seed),
      contrastLevel: v.nullish(range(0, 100)),
      pastel: v.nullish(v.boolean()),
      surfaceMode: v.nullish(v.picklist(['neutral', 'tinted'])),
      themes: v.nullish(
        obj({
          code: v.nullish(obj({ saturation: v.nullish(range(0, 100)) })),
          danger: v.nullish(seed),
          note: v.nullish(seed),
          success: v.nullish(seed),
          warning: v.nullish(seed),
        }),
      ),
    }),
  ),
  logoUrl: v.nullish(https),
  light: v.nullish(scheme),
  dark: v.nullish(scheme),
  typography: v.nullish(
    obj({
      fonts: v.nullish(v.pipe(v.array(themeFont), v.maxLength(20))),
      body: v.nullish(fontRef),
      heading: v.nullish(fontRef),
    }),
  ),
});

const embeddingPatch = obj({
  allowAi: v.nullish(v.boolean()),
  enableDashboardComments: v.nullish(v.boolean()),
  locale: v.nullish(locale),
  showAiWidgets: v.nullish(v.boolean()),
  showDashboardChat: v.nullish(v.boolean()),
  showWorkbookChat: v.nullish(v.boolean()),
  timezone: v.nullish(timeZone),
});

const creatorModePatch = obj({
  localizedTitles: v.nullish(v.pipe(v.array(obj({ locale, value: text(1000) })), v.maxLength(50))),
  showGeneratedSql: v.nullish(v.boolean()),
  showSemanticSql: v.nullish(v.boolean()),
  showWorkspaceTitle: v.nullish(v.boolean()),
  workspaceTitle: v.nullish(text(255)),
});

const timezoneSettingsPatch = obj({
  allowUserOverride: v.nullish(v.boolean()),
  enabled: v.nullish(v.boolean()),
  timezone: v.nullish(timeZone),
});

/**
 * An update of the app config: a JSON merge patch (RFC 7396) of Cube's AppConfigResponse. An
 * omitted field keeps its value, `null` resets it to its default (a section: not set), an
 * object merges field by field, an array replaces.
 */
const appConfigPatch = obj({
  appTheme: v.nullish(appThemePatch),
  applyThemeGlobally: v.nullish(v.boolean()),
  creatorMode: v.nullish(creatorModePatch),
  embedding: v.nullish(embeddingPatch),
  restrictDataDownload: v.nullish(v.boolean()),
  sheetsAgentChatEnabled: v.nullish(v.boolean()),
  sheetsUi: v.nullish(obj({ showAppliedFilters: v.nullish(v.boolean()) })),
  timezoneSettings: v.nullish(timezoneSettingsPatch),
});

/** The body of updateAppConfig (no body changes nothing). */
export const appConfigPatchBody = v.optional(appConfigPatch);

export type AppConfigPatch = v.InferOutput<typeof appConfigPatch>;

// Arrays are replaced whole by a patch: their items stay as validated.
type NoNulls<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: NoNulls<Exclude<T[K], null>> }
    : T;

/**
 * The app config as stored: a merge of patches, so no field holds null (inside arrays, which a
 * patch replaces whole, a font's optional fields may). The embedded chat's default is not here.
 */
export type StoredAppConfig = NoNulls<Omit<AppConfigPatch, 'embedding'>> & {
  embedding?: NoNulls<Omit<NonNullable<AppConfigPatch['embedding']>, 'showDashboardChat'>>;
};

// ---- Answers ----

const nullable = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

const seedSchema = v.object({
  color: nullable(v.string()),
  hue: nullable(v.number()),
  saturation: nullable(v.number()),
});

const schemeSchema = v.object({
  accentColor: v.string(),
  backgroundColor: v.string(),
  foregroundColor: v.string(),
  contrast: v.number(),
  logoUrl: v.string(),
});

const fontRefSchema = v.object({ fontRef: v.string(), fontWeight: v.number() });

/** Cube's AppTheme: `light` and `dark` (deprecated by Cube) are filled in when not set. */
export const appThemeSchema = v.object({
  palette: v.object({
    accent: nullable(seedSchema),
    base: nullable(seedSchema),
    contrastLevel: nullable(v.number()),
    pastel: nullable(v.boolean()),
    surfaceMode: nullable(v.picklist(['neutral', 'tinted'])),
    themes: nullable(
      v.object({
        code: nullable(v.object({ saturation: nullable(v.number()) })),
        danger: nullable(seedSchema),
        note: nullable(seedSchema),
        success: nullable(seedSchema),
        warning: nullable(seedSchema),
      }),
    ),
  }),
  logoUrl: v.string(),
  light: schemeSchema,
  dark: schemeSchema,
  typography: nullable(
    v.object({
      fonts: v.array(
        v.object({
          id: v.string(),
          url: v.string(),
          format: v.string(),
          family: nullable(v.string()),
          name: nullable(v.string()),
        }),
      ),
      body: fontRefSchema,
      heading: fontRefSchema,
    }),
  ),
});

/** Cube's AppConfigResponse. */
export const appConfigSchema = v.object({
  appTheme: v.nullable(appThemeSchema),
  applyThemeGlobally: v.boolean(),
  creatorMode: v.nullable(
    v.object({
      localizedTitles: nullable(v.array(v.object({ locale: v.string(), value: v.string() }))),
      showGeneratedSql: nullable(v.boolean()),
      showSemanticSql: nullable(v.boolean()),
      showWorkspaceTitle: nullable(v.boolean()),
      workspaceTitle: nullable(v.string()),
    }),
  ),
  embedding: v.object({
    allowAi: nullable(v.boolean()),
    enableDashboardComments: nullable(v.boolean()),
    locale: nullable(v.string()),
    showAiWidgets: nullable(v.boolean()),
    showDashboardChat: v.boolean(),
    showWorkbookChat: nullable(v.boolean()),
    timezone: nullable(v.string()),
  }),
  restrictDataDownload: v.boolean(),
  sheetsAgentChatEnabled: v.boolean(),
  sheetsUi: v.nullable(v.object({ showAppliedFilters: nullable(v.boolean()) })),
  timezoneSettings: v.nullable(
    v.object({
      allowUserOverride: nullable(v.boolean()),
      enabled: nullable(v.boolean()),
      timezone: nullable(v.string()),
    }),
  ),
});

export type AppConfig = v.InferOutput<typeof appConfigSchema>;
