-- The per-user request counters (src/auth/authenticate.ts) are written by every authenticated
-- request. In a logged table each of those writes waited for a WAL flush (an fsync) at commit;
-- an unlogged table's writes make no WAL, so their commit does not wait. What is given up: after
-- a crash of PostgreSQL (not of Lectern) the table starts empty, i.e. every user's current
-- window restarts; and a standby does not carry it. Counters of a 60-second window are worth
-- neither. Prisma does not model UNLOGGED, so the schema shows no drift.
ALTER TABLE "RateLimitWindow" SET UNLOGGED;
