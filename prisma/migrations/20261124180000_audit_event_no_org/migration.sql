-- Issue 18 (lane P18b): audit events of no organization (a token made by the CLI, the caller's own profile).

-- AlterTable
ALTER TABLE "AuditEvent" ALTER COLUMN "organizationId" DROP NOT NULL;
