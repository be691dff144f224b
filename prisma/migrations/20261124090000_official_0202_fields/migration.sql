-- OpenAPISpec.lastProcessedErrorCount (GitBook API 0.202.0): how many errors the newest processing
-- found (lastProcessedErrors keeps at most 20, then a "…and N more validation errors" summary).
-- Specs processed before this migration count the errors they kept, plus the summary's N.
ALTER TABLE "OpenAPISpec" ADD COLUMN "lastProcessedErrorCount" INTEGER NOT NULL DEFAULT 0;
UPDATE "OpenAPISpec"
SET "lastProcessedErrorCount" = jsonb_array_length("lastProcessedErrors")
  + coalesce(substring("lastProcessedErrors" -> -1 ->> 'message' from '^…and ([0-9]+) more')::int - 1, 0)
WHERE jsonb_typeof("lastProcessedErrors") = 'array' AND jsonb_array_length("lastProcessedErrors") > 0;
