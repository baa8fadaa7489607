/** Decisions about notifications (E15, E16, contract §7), recorded in the OpenAPI document. */
export const NOTIFICATIONS_DECISIONS = [
  'Notification endpoints take an admin Bearer token (contract §2); an API key is a 401, a member a 403.',
  'A schedule field that does not apply to the schedule type (e.g. `dayOfWeek` on DAILY) is a 400 when given; on E16, stored fields the new type does not use are dropped.',
  "A CUSTOM `customCron` is a standard 5-field expression (numbers, `*`, ranges, steps, lists, JAN–DEC, SUN–SAT, 7 = Sunday); when both day fields are restricted either may match, as in cron. A day a month lacks is skipped (the last-day rule is MONTHLY's); an expression that never fires is a 400.",
  '`timezone` must be an IANA zone name (its canonical spelling is stored); UTC offsets such as `+02:00` are refused because they have no daylight-saving rules.',
  'Local-time rules apply to every local time a schedule produces: HOURLY runs at 03:00 for the 02:30 a spring-forward gap removes, and skips the repeated 01:30 of a fall-back hour.',
  '`nextRunAt` is null while `isEnabled` is false. E16 recomputes it from now when the schedule or `isEnabled` changes; an edit of anything else keeps it, so a due slot is not lost. Re-enabling never replays slots missed while disabled.',
  '`GET …/schedule` answers `{cronExpression, humanReadableSchedule, timezone, isEnabled, nextRuns: [{utc, local}]}`; `count` defaults to 10; `local` is ISO 8601 with the offset in force.',
  '`timeGrains[].grain` is one of second, minute, hour, day, week, month, quarter, year; filter flags (`caseSensitive`, `startInclusive`, `endInclusive`) are booleans.',
  'A `dashboardId`/`dashboardPublicId` that names no published dashboard of the deployment is a 404 naming the field.',
  'The notification list is ordered by id and takes `dashboardId` or `dashboardPublicId` as filters.',
];
