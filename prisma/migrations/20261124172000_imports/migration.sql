-- Imports (src/modules/imports): uploads to Lectern's own storage, and import runs.
-- CreateTable
CREATE TABLE "StorageUpload" (
    "key" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "data" BYTEA,
    "uploadedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StorageUpload_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ImportRun" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "spaceId" TEXT NOT NULL,
    "changeRequestId" TEXT,
    "pageId" TEXT,
    "siteId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reason" TEXT,
    "source" JSONB NOT NULL,
    "pagesTotal" INTEGER NOT NULL DEFAULT 0,
    "pagesDone" INTEGER NOT NULL DEFAULT 0,
    "pages" JSONB NOT NULL DEFAULT '[]',
    "skipped" JSONB NOT NULL DEFAULT '[]',
    "revisionId" TEXT,
    "createdById" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ImportRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "StorageUpload_organizationId_idx" ON "StorageUpload"("organizationId");

-- CreateIndex
CREATE INDEX "StorageUpload_createdAt_idx" ON "StorageUpload"("createdAt");

-- CreateIndex
CREATE INDEX "ImportRun_organizationId_createdAt_idx" ON "ImportRun"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "ImportRun_spaceId_idx" ON "ImportRun"("spaceId");
