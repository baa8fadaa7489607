export interface ThrowawayPostgres {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  url: string;
  /** Debian's server binaries (psql among them). */
  bin: string;
  stop(): Promise<void>;
}

export function startPostgres(options?: { quiet?: boolean }): Promise<ThrowawayPostgres>;
