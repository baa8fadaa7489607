export interface DemoTable {
  name: string;
  columns: string[];
  rows: (string | number | null)[][];
}

export function demoTables(options?: { orders?: number }): DemoTable[];
export function csvChunks(table: DemoTable, maxBytes?: number): string[];
export function demoModel(prefix?: string): string;
