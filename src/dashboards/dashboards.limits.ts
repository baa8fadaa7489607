import type { JsonLimits } from '../core/json';

/**
 * Size limits of everything a dashboard or report stores. Chosen so that a whole stored row stays
 * well under D1's 1 MB per row and string (a workbook row: meta 64 KiB + calculatedFields 64 KiB +
 * draft 512 KiB; a report row: spec 200 KB + SQL 200 KB + jsonQuery 64 KiB + meta 32 KiB +
 * preferences 32 KiB + the spreadsheet add-in fields (pivotItems 32 KiB, resultChecksum 160 KiB,
 * short text) + short text), and every JSON value far under SQLite's JSON nesting limit (1000).
 */

/** Widgets per dashboard. */
export const MAX_WIDGETS = 200;
/** Files of a dashboard app (`app.files`). */
export const MAX_APP_FILES = 100;
/** Embed tenants one workbook may be shared with: the embed-access answer lists them all. */
export const MAX_TENANT_SHARES = 100;

/** The whole DashboardConfig (a draft, and each version's frozen copy). */
export const DASHBOARD_CONFIG_LIMITS: JsonLimits = { maxDepth: 24, maxBytes: 512 * 1024 };
/** `settings` of a dashboard. */
export const SETTINGS_LIMITS: JsonLimits = { maxDepth: 12, maxBytes: 32 * 1024 };
/** A widget's `config`. */
export const WIDGET_CONFIG_LIMITS: JsonLimits = { maxDepth: 12, maxBytes: 32 * 1024 };
/** A widget's `style`. */
export const WIDGET_STYLE_LIMITS: JsonLimits = { maxDepth: 6, maxBytes: 8 * 1024 };

/** A report's `pivotItems` (the spreadsheet add-in's layout), as JSON. */
export const PIVOT_ITEMS_LIMITS: JsonLimits = { maxDepth: 3, maxBytes: 32 * 1024 };
/** A report's `resultChecksum` (the spreadsheet add-in's chunk hashes), as JSON. */
export const RESULT_CHECKSUM_LIMITS: JsonLimits = { maxDepth: 4, maxBytes: 160 * 1024 };

/** A report's `meta` (and its snapshot's). */
export const REPORT_META_LIMITS: JsonLimits = { maxDepth: 12, maxBytes: 32 * 1024 };
/** A report's `preferences.columnFormats`. */
export const COLUMN_FORMATS_LIMITS: JsonLimits = { maxDepth: 8, maxBytes: 32 * 1024 };
/** Bytes (UTF-8) of a report's `spec` and of its `sqlQuery`, each. */
export const REPORT_TEXT_MAX_BYTES = 200_000;
/** `periodComparisons` per report. */
export const MAX_PERIOD_COMPARISONS = 50;

/** A workbook's `meta`, and its `calculatedFields`, each. */
export const WORKBOOK_JSON_LIMITS: JsonLimits = { maxDepth: 16, maxBytes: 64 * 1024 };
