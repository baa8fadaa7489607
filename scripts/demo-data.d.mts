export interface DemoTable {
  name: string;
  columns: string[];
  rows: (string | number | null)[][];
}

export function demoTables(options?: { orders?: number }): DemoTable[];
export function csvChunks(table: DemoTable, maxBytes?: number): string[];
export function demoModel(prefix?: string, options?: { rollups?: boolean }): string;

export interface DemoReport {
  /** The widget id that shows it, and its key in `demoDashboard`'s `reportIds`. */
  key: string;
  name: string;
  /** A Cube query over `demoModel()`. */
  query: Record<string, unknown>;
  /** Chart settings (`type`, `x`, `y`, `unit`), without data. */
  spec: Record<string, unknown>;
}

export function demoReports(): DemoReport[];
export function demoDashboard(reportIds: Record<string, number>): Record<string, unknown>;
