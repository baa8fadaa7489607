-- An account's forward was written with its id bound as a number, which D1 binds as REAL: the
-- key read '2000000000003.0', and no session or token hint ('2000000000003') found it.
-- Keys are written as text now; this mends the rows of accounts already moved.
UPDATE OR IGNORE forwards SET key = CAST(CAST(key AS INTEGER) AS TEXT)
  WHERE kind = 'account' AND key GLOB '*.0';
